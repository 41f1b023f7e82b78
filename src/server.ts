// Starts Gantry on a socket and stops it gracefully: stop accepting, finish in-flight requests,
// stop background work, close the store.
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { GantryConfig } from './config.js';
import { buildApp, type App } from './app.js';
import { createServices, type Services } from './compose.js';
import type { CreatedKey } from './services/api-keys.js';
import { openStore } from './store/open-store.js';

export interface RunningServer {
  app: App;
  services: Services;
  /** The address it listens on, with the real port when 0 was asked for. */
  url: string;
  /** Set on the very first start only: the admin key, to be shown once. */
  adminKey: CreatedKey | undefined;
  close(): Promise<void>;
}

export async function startServer(config: GantryConfig): Promise<RunningServer> {
  const log = pino({ level: config.logLevel });
  const services = createServices(config, await openStore(config), log);
  let app: App;
  try {
    app = await buildApp(services, { logger: log });
    const adminKey = await services.apiKeys.ensureAdminKey();
    await app.listen({ port: config.port, host: config.host });
    await services.start();
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    if (config.port === 0) useRealPort(config, address.port);
    let closing: Promise<void> | undefined;
    return {
      app,
      services,
      url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`,
      adminKey,
      close() {
        closing ??= (async () => {
          await app.close();
          await services.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await services.close().catch(() => undefined);
    throw error;
  }
}

/** With --port 0 the URLs derived from the port are only known once listening; fix them up. */
function useRealPort(config: GantryConfig, port: number): void {
  const fix = (url: string) => url.replace(/^(https?:\/\/[^/]+):0(?=\/|$)/, `$1:${port}`);
  config.publicUrl = fix(config.publicUrl);
  config.workerApiUrl = fix(config.workerApiUrl);
  config.replicaUrl = fix(config.replicaUrl);
  config.lbUrlPattern = fix(config.lbUrlPattern);
}
