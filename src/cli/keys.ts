// `gantry keys create|list|revoke`: API keys, managed straight in the database.
import { Command, InvalidArgumentError } from 'commander';
import { ApiKeyService } from '../services/api-keys.js';
import type { KeyPermission, Store } from '../store/store.js';
import { CliError, configFrom, EXIT_USAGE, withDataDir, type StoreFlags } from './options.js';
import { openExistingStore } from './existing-store.js';

const PERMISSIONS: KeyPermission[] = ['full', 'read', 'endpoints'];
const DURATION = /^(\d+)(m|h|d)$/;

function parseDuration(value: string): number {
  const match = DURATION.exec(value);
  if (!match) throw new InvalidArgumentError('use a number followed by m, h or d, e.g. 90m, 12h, 30d');
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

function parseInstant(value: string): string {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InvalidArgumentError('use an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z');
  return new Date(at).toISOString();
}

/** `keys.now` is the clock the server judges expiry by: the database's on PostgreSQL (decision 47). */
async function withKeys<T>(flags: StoreFlags, work: (keys: ApiKeyService, store: Store) => Promise<T>): Promise<T> {
  const { commandClock } = await import('../cluster/database-clock.js');
  const store = await openExistingStore(configFrom({ dataDir: flags.dataDir, database: flags.database }));
  try {
    return await work(new ApiKeyService(store, await commandClock(store)), store);
  } finally {
    await store.close();
  }
}

interface CreateFlags extends StoreFlags {
  account: string;
  name?: string;
  permission: KeyPermission;
  endpoints?: string;
  expiresIn?: number;
  expiresAt?: string;
  rateLimitExempt?: boolean;
}

function createCommand(): Command {
  return withDataDir(new Command('create'))
    .description('create an API key and print only the key on stdout')
    .option('--account <name>', 'account the key belongs to (created if new)', 'default')
    .option('--name <name>', 'a label for the key')
    .option(
      '--permission <permission>',
      `one of ${PERMISSIONS.join(', ')}`,
      (value) => {
        if (!PERMISSIONS.includes(value as KeyPermission)) throw new InvalidArgumentError(`use one of ${PERMISSIONS.join(', ')}`);
        return value as KeyPermission;
      },
      'full',
    )
    .option('--endpoints <ids>', 'comma-separated endpoint ids (with --permission endpoints)')
    .option('--expires-in <duration>', 'lifetime such as 90m, 12h or 30d', parseDuration)
    .option('--expires-at <date-time>', 'expiry as an ISO 8601 date-time', parseInstant)
    .option('--rate-limit-exempt', 'no rate limits and no RateLimit headers for this key')
    .action(async (flags: CreateFlags) => {
      if (flags.expiresIn !== undefined && flags.expiresAt !== undefined) {
        throw new CliError('give --expires-in or --expires-at, not both', EXIT_USAGE);
      }
      const endpointIds = flags.endpoints
        ? flags.endpoints
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean)
        : [];
      const created = await withKeys(flags, async (keys, store) => {
        // As the API refuses it: a key limited to endpoints its account does not have could never be used.
        const account = await store.findAccountByName(flags.account);
        for (const id of endpointIds) {
          if (!account || !(await store.getEndpoint(account.id, id))) {
            throw new CliError(`no endpoint ${id} in account '${flags.account}'`, EXIT_USAGE);
          }
        }
        const expiresAt = flags.expiresIn !== undefined ? new Date(keys.now() + flags.expiresIn).toISOString() : (flags.expiresAt ?? null);
        // By the server's clock: a key that would be refused from its first request is a mistake.
        if (expiresAt !== null && Date.parse(expiresAt) <= keys.now()) {
          throw new CliError(
            `the key would expire at ${expiresAt}, which has passed; give a later --expires-at or a longer --expires-in`,
            EXIT_USAGE,
          );
        }
        return keys
          .create({
            expiresAt,
            accountName: flags.account,
            name: flags.name,
            permission: flags.permission,
            endpointIds,
            rateLimitExempt: flags.rateLimitExempt ?? false,
          })
          .catch((error: Error) => {
            throw new CliError(error.message, EXIT_USAGE);
          });
      });
      if (created.accountCreated) process.stderr.write(`account '${flags.account}' created\n`);
      process.stdout.write(`${created.token}\n`);
    });
}

function keyStatus(key: { revokedAt: string | null; expiresAt: string | null }, nowMs: number): string {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

function listCommand(): Command {
  return withDataDir(new Command('list'))
    .description('list API keys (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (flags: StoreFlags & { json?: boolean }) => {
      const rows = await withKeys(flags, async (keys, store) => {
        const list = await keys.list();
        return Promise.all(
          list.map(async (key) => ({
            id: key.id,
            account: (await store.getAccount(key.accountId))?.name ?? key.accountId,
            name: key.name,
            permission: key.permission,
            endpoints: key.endpointIds,
            rateLimitExempt: key.rateLimitExempt,
            createdAt: key.createdAt,
            expiresAt: key.expiresAt,
            status: keyStatus(key, keys.now()),
          })),
        );
      });
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const header = ['ID', 'ACCOUNT', 'NAME', 'PERMISSION', 'ENDPOINTS', 'EXEMPT', 'CREATED', 'EXPIRES', 'STATUS'];
      const table = rows.map((r) => [
        r.id,
        r.account,
        r.name,
        r.permission,
        r.endpoints.join(',') || '-',
        r.rateLimitExempt ? 'yes' : 'no',
        r.createdAt,
        r.expiresAt ?? '-',
        r.status,
      ]);
      const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
      for (const row of [header, ...table])
        process.stdout.write(
          `${row
            .map((cell, i) => cell.padEnd(widths[i]!))
            .join('  ')
            .trimEnd()}\n`,
        );
    });
}

function revokeCommand(): Command {
  return withDataDir(new Command('revoke'))
    .description('revoke an API key by its id (or the whole key)')
    .argument('<key>', 'the key id, or the full key')
    .action(async (given: string, flags: StoreFlags) => {
      const id = /^gantry_([a-z0-9]{12})_/.exec(given)?.[1] ?? given;
      const revoked = await withKeys(flags, (keys) => keys.revoke(id));
      if (!revoked) throw new CliError(`no API key with id ${id}`);
      process.stderr.write(`key ${id} revoked\n`);
    });
}

export function keysCommand(): Command {
  return new Command('keys')
    .description('create, list and revoke API keys')
    .addCommand(createCommand())
    .addCommand(listCommand())
    .addCommand(revokeCommand());
}
