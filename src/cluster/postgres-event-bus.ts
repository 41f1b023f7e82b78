// Cross-replica notifications over PostgreSQL LISTEN/NOTIFY. One dedicated connection per
// replica listens; events published in the same event-loop turn, or while the previous NOTIFY is
// still at the database, go out as one NOTIFY (so a busy replica sends a few per round trip
// instead of one per job, and an idle one sends at once). Better still, the store's hot statements
// going out meanwhile carry them (take()), so a busy replica's events cost no round trip. A lost
// connection is re-established; waiters also re-check the store on a slow timer, so a
// notification missed meanwhile only delays a wake-up.
// A replica alone sends nothing (a NOTIFY per turn was a quarter of a lone replica's statements).
// It knows it is alone from the heartbeat (other replicas' fresh rows); a replica that starts
// listening says hello at once, so the others send to it before their next heartbeat shows it.
import pg from 'pg';
import { connectionOptions, type PoolOptions } from '../store/postgres/database.js';
import { decodeEvent, encodeEvent, type ClusterEvent, type EventBus } from './events.js';
import { PendingEvents } from './pending-events.js';
import type { Logger } from '../domain/logger.js';
import { storeErrorFields } from '../store/unavailable.js';
import { EVENT_CHANNEL, type WaitingNotifications } from '../store/postgres/notifications.js';

const CHANNEL = EVENT_CHANNEL;
/** NOTIFY payloads must stay under 8000 bytes. */
const MAX_PAYLOAD = 7000;
const RECONNECT_DELAY_MS = 1000;
/** The line a replica sends when it starts listening. */
const HELLO = 'hello';

export class PostgresEventBus implements EventBus, WaitingNotifications {
  private readonly listeners: ((event: ClusterEvent) => void)[] = [];
  /** Encoded events not yet sent: facts once, queued counts added up. */
  private readonly pending = new PendingEvents();
  private flushScheduled = false;
  private sending = false;
  private listener: pg.Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private lastHelloHeard = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PoolOptions,
    private readonly replicaId: string,
    private readonly log: Logger,
    /** Other replicas as the last heartbeat counted them (undefined before the first: assumed there). */
    private readonly otherReplicas: () => number | undefined,
    /** How long a replica heard saying hello counts as listening before a heartbeat shows it. */
    private readonly helloCountsForMs: number,
  ) {}

  async start(): Promise<void> {
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client(connectionOptions(this.options));
    client.on('notification', (message) => this.received(message.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      // Cut between connecting and listening: the half-set-up connection is not kept open.
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.listener = client;
    this.notify(`${this.replicaId}\n${HELLO}`).catch(() => undefined);
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.closed || this.listener !== client) return;
    this.log.warn(storeErrorFields(err), 'event listener connection lost; reconnecting');
    this.listener = undefined;
    void client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.listen().catch((err: unknown) => {
        this.log.warn(storeErrorFields(err), 'event listener could not reconnect; retrying');
        this.scheduleReconnect();
      });
    }, RECONNECT_DELAY_MS);
  }

  private received(payload: string): void {
    const lines = payload.split('\n');
    // The first line names the sender: a replica ignores what it sent itself.
    if (lines[0] === this.replicaId) return;
    if (lines[1] === HELLO) {
      this.lastHelloHeard = Date.now();
      return;
    }
    for (const line of lines.slice(1)) {
      const event = decodeEvent(line);
      if (event) for (const listener of this.listeners) listener(event);
    }
  }

  subscribe(listener: (event: ClusterEvent) => void): void {
    this.listeners.push(listener);
  }

  publish(event: ClusterEvent): void {
    if (!this.othersListening()) return;
    this.pending.add(encodeEvent(event));
    this.scheduleFlush();
  }

  othersListening(): boolean {
    return !this.closed && (this.otherReplicas() !== 0 || Date.now() - this.lastHelloHeard < this.helloCountsForMs);
  }

  private notify(payload: string): Promise<unknown> {
    return this.pool.query({ name: 'gantry_notify', text: 'SELECT pg_notify($1, $2)', values: [CHANNEL, payload] });
  }

  /**
   * The waiting events as one payload (up to the size NOTIFY allows), taken from `pending` after
   * `own` (encoded events a statement carries itself, which fit in any case); null when none wait.
   */
  take(own: readonly string[] = []): string | null {
    if (this.closed || (this.pending.size === 0 && own.length === 0)) return null;
    let payload = this.replicaId;
    // A statement's own lines (one per job it queues) add up too, into one line per endpoint.
    const mine = new PendingEvents();
    for (const line of own) mine.add(line);
    mine.takeWhile((line) => {
      payload += `\n${line}`;
      return true;
    });
    this.pending.takeWhile((line) => {
      if (payload !== this.replicaId && payload.length + line.length + 1 > MAX_PAYLOAD) return false;
      payload += `\n${line}`;
      return true;
    });
    return payload;
  }

  /** A taken payload that did not go out: its events wait again. */
  giveBack(payload: string): void {
    this.sendLater(payload.split('\n').slice(1));
  }

  sendLater(lines: readonly string[]): void {
    for (const line of lines) this.pending.add(line);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.sending || this.pending.size === 0) return;
    this.flushScheduled = true;
    // A turn later than the store's statements of this turn, which carry what they can (take()).
    setImmediate(() => setImmediate(() => this.flush()));
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.closed) return;
    const payloads: string[] = [];
    for (let payload = this.take(); payload !== null; payload = this.take()) payloads.push(payload);
    if (payloads.length === 0) return;
    this.sending = true;
    const sent = payloads.map((payload) =>
      this.notify(payload).catch((err: unknown) => {
        this.log.warn(storeErrorFields(err), 'could not notify the other replicas; they will catch up on their next re-check');
      }),
    );
    void Promise.all(sent).then(() => {
      this.sending = false;
      this.scheduleFlush();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }
}
