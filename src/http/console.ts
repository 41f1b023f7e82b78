// Serves the web console (built by `npm run build` into dist/console) under /console, and sends
// browsers asking for `/` there. The console is a static single-page app that calls the public
// API with the user's key, so these routes need no authentication of their own.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from './problem.js';

/** The package root: two folders up from src/http, three from dist/src/http. */
const PACKAGE_ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/src/') ? '../../../' : '../../', import.meta.url));
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

// Everything the console loads comes from this server; the API is same-origin.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Whether the client would rather have HTML than anything else it lists (a browser's navigation). */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = -1;
  let best = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(
      params
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2) ?? '1',
    );
    const weight = Number.isFinite(q) ? q : 0;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, weight);
    else best = Math.max(best, weight);
  }
  return html > 0 && html >= best;
}

async function sendFile(reply: FastifyReply, path: string, cache: string): Promise<FastifyReply> {
  const body = await readFile(path).catch(() => undefined);
  if (body === undefined) throw new ApiError(404, 'no such console file');
  return reply
    .headers({ ...SECURITY_HEADERS, 'cache-control': cache })
    .type(TYPES[extname(path)] ?? 'application/octet-stream')
    .send(body);
}

/** Only `/` changes, and only for browsers: API clients keep the answer they got before. Installed on the root. */
export function installConsoleRedirect(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    const { url } = request;
    const root = url === '/' || url.startsWith('/?');
    if (root && (request.method === 'GET' || request.method === 'HEAD') && prefersHtml(request.headers.accept)) {
      reply.redirect('/console/', 302);
      return;
    }
    done();
  });
}

export function consoleRoutes(dir = CONSOLE_DIR): FastifyPluginAsync {
  return async (app) => {
    const index = join(dir, 'index.html');
    const page = async (_request: FastifyRequest, reply: FastifyReply) => {
      if (!existsSync(index)) throw new ApiError(404, 'the console is not built: run `npm run build`');
      const html = await readFile(index);
      return reply
        .headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache' })
        .type('text/html; charset=utf-8')
        .send(html);
    };
    const options = { schema: { hide: true }, config: { auth: 'none' as const } };

    app.get('/console', options, page);
    // Hashed file names: a file's content never changes under its name.
    app.get<{ Params: { file: string } }>('/console/assets/:file', options, async (request, reply) => {
      const { file } = request.params;
      if (!/^[\w.-]+$/.test(file) || file.startsWith('.')) throw new ApiError(404, 'no such console file');
      return sendFile(reply, join(dir, 'assets', file), 'public, max-age=31536000, immutable');
    });
    app.get('/console/favicon.svg', options, async (_request, reply) => sendFile(reply, join(dir, 'favicon.svg'), 'public, max-age=3600'));
    // Any other path is a page of the single-page app.
    app.get('/console/*', options, page);
  };
}
