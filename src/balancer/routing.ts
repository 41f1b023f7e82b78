// Which load-balancing endpoint a request is for: its own host (from the --lb-url-pattern, e.g.
// `{id}.lb.example.com`, and `{id}.localhost` always), or the path prefix /v2/lb/{id}/ on the main address for machines
// without wildcard DNS. The path after the prefix is what the worker sees.
import type { IncomingMessage } from 'node:http';

export const LB_PATH_PREFIX = '/v2/lb/';

export interface LbTarget {
  endpointId: string;
  /** Path and query as the worker receives them. */
  path: string;
}

const ID = '([a-z0-9]+)';
/** `<id>.localhost` resolves to loopback in curl and browsers: it routes whatever the pattern. */
const LOCALHOST = new RegExp(`^${ID}\\.localhost$`);
const MAY_BE_LOCALHOST = /\.localhost/i;

type RouterSettings = { lbUrlPattern: string; publicUrl: string; workerApiUrl: string };

export class LbRouter {
  private compiledFor: RouterSettings = { lbUrlPattern: '', publicUrl: '', workerApiUrl: '' };
  private hostPattern: RegExp | undefined;
  private mainHostnames = new Set<string>();

  /**
   * Settings are read on every call: they may be fixed up once the real port is known. The main
   * addresses never route to an endpoint, even where the pattern would match them
   * (`{id}.example.com` and `api.example.com`).
   */
  constructor(private readonly settings: () => RouterSettings) {}

  match(req: IncomingMessage): LbTarget | undefined {
    const url = req.url ?? '/';
    if (url.startsWith(LB_PATH_PREFIX)) return fromPath(url);
    const host = req.headers.host;
    if (host === undefined) return undefined;
    const hostPattern = this.hostRegex();
    // Most requests name the server itself: no hostname is worked out unless one may name an endpoint.
    if (!hostPattern && !MAY_BE_LOCALHOST.test(host)) return undefined;
    const hostname = hostnameOf(host);
    const match = hostPattern?.exec(hostname) ?? LOCALHOST.exec(hostname);
    if (!match || this.mainHostnames.has(hostname)) return undefined;
    return { endpointId: match[1]!, path: url };
  }

  private hostRegex(): RegExp | undefined {
    // Every request on the server passes here: the three settings are compared, not joined into a key.
    const { lbUrlPattern, publicUrl, workerApiUrl } = this.settings();
    const seen = this.compiledFor;
    if (lbUrlPattern !== seen.lbUrlPattern || publicUrl !== seen.publicUrl || workerApiUrl !== seen.workerApiUrl) {
      this.compiledFor = { lbUrlPattern, publicUrl, workerApiUrl };
      this.hostPattern = compileHost(lbUrlPattern);
      this.mainHostnames = new Set([publicUrl, workerApiUrl].map((url) => hostnameOf(new URL(url).host)));
    }
    return this.hostPattern;
  }
}

function fromPath(url: string): LbTarget | undefined {
  const rest = url.slice(LB_PATH_PREFIX.length);
  const match = /^([a-z0-9]+)(?=[/?]|$)/.exec(rest);
  if (!match) return undefined;
  const path = rest.slice(match[1]!.length);
  return { endpointId: match[1]!, path: path === '' ? '/' : path.startsWith('?') ? `/${path}` : path };
}

/** The hostname part of the pattern as a regex, when the id is in the hostname. Ports are ignored. */
function compileHost(pattern: string): RegExp | undefined {
  const hostPart = /^[a-z]+:\/\/([^/?#]+)/i.exec(pattern)?.[1];
  if (!hostPart || !hostPart.includes('{id}')) return undefined;
  const hostname = hostnameOf(hostPart.toLowerCase());
  const source = hostname
    .split('{id}')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(ID);
  return new RegExp(`^${source}$`);
}

function hostnameOf(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon >= 0 ? lower.slice(0, colon) : lower;
}
