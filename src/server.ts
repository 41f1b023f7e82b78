// Starts Gantry on a socket and stops it gracefully within --worker-stop-grace-ms (plus the few
// seconds closing the store takes): stop accepting, end tunnels, stop workers while in-flight
// requests finish, cut the requests still open when the grace is over, stop background work,
// close the store.
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { withPort, type GantryConfig } from './config.js';
import { buildApp, type App } from './app.js';
import { createServices, type Services } from './compose.js';
import type { CreatedKey } from './services/api-keys.js';
import { openStore } from './store/open-store.js';
import { reservePort, type PortReservation } from './reserve-port.js';

/** Requests in flight get at least this long to finish once the workers are stopped. */
const LAST_REQUESTS_MS = 1000;

export interface RunningServer {
  app: App;
  services: Services;
  /** The address it listens on, with the real port when 0 was asked for. */
  url: string;
  /** Set on the very first start only: the admin key, to be shown once. */
  adminKey: CreatedKey | undefined;
  /** Graceful: done within --worker-stop-grace-ms plus the time the store and background work take to close. */
  close(): Promise<void>;
  /** For a process that must exit right now: its workers would outlive it, in process groups of their own. */
  killWorkersNow(): Promise<void>;
}

export async function startServer(requested: GantryConfig): Promise<RunningServer> {
  // Services read the URLs derived from the port from the start: with port 0, a free port is
  // picked (and held) before they are made, rather than learned once listening.
  const reservation = requested.port === 0 ? await reservePort(requested.host) : undefined;
  try {
    return await start(reservation ? withPort(requested, reservation.port) : requested, reservation);
  } finally {
    await reservation?.release();
  }
}

async function start(config: GantryConfig, reservation: PortReservation | undefined): Promise<RunningServer> {
  const log = pino({ level: config.logLevel });
  const services = createServices(config, await openStore(config, log.child({ component: 'store' }), true), log);
  let app: App | undefined;
  try {
    app = await buildApp(services, { logger: log });
    // Loaded before the reserved port is let go, so the port is free only between the release and
    // the bind, not while the plugins load: any socket may take a free port meanwhile.
    await app.ready();
    await services.prepare();
    await reservation?.release();
    await app.listen({ port: config.port, host: config.host });
    // Only once the port is ours: a start that fails to listen must not make the one admin key
    // that is shown only once, and then never show it.
    const adminKey = await services.apiKeys.ensureAdminKey();
    await services.start();
    const listening = app;
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    let closing: Promise<void> | undefined;
    return {
      app: listening,
      services,
      url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`,
      adminKey,
      close() {
        closing ??= (async () => {
          // Workers stop first, with the listener open: what they finish in their grace is
          // posted here and kept, not lost and run again. Then the listener closes; tunnels and
          // log streams end at once (the app's preClose), and requests still open at the grace's
          // end (or a moment after the workers, if they took all of it) are cut, so neither a
          // silent tunnel nor a long request holds shutdown past it.
          const deadline = Date.now() + config.workerStopGraceMs;
          let cutOff: NodeJS.Timeout | undefined;
          try {
            await services.stopWorkers();
            const left = Math.max(LAST_REQUESTS_MS, deadline - Date.now());
            cutOff = setTimeout(() => listening.server.closeAllConnections(), left);
            await listening.close();
          } finally {
            clearTimeout(cutOff);
          }
          await services.close();
        })();
        return closing;
      },
      killWorkersNow: () => services.killWorkersNow(),
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await services.close().catch(() => undefined);
    throw error;
  }
}
