// `gantry doctor`: checks a deployment's store (connectivity, schema, notifications, replicas) and
// says what is wrong. Exits 1 when a check fails.
import { Command } from 'commander';
import { checkPostgres, checkSqlite, type CheckResult } from '../doctor/checks.js';
import { configFrom, withDataDir, type StoreFlags } from './options.js';

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function doctorCommand(): Command {
  return withDataDir(new Command('doctor'))
    .description("check the deployment's database: connectivity, schema version, notifications and replicas")
    .action(async (flags: StoreFlags) => {
      const config = configFrom({ dataDir: flags.dataDir, database: flags.database });
      const results = config.databaseUrl ? await checkPostgres(config) : await checkSqlite(config);
      for (const r of results) process.stdout.write(`${MARK[r.status]}  ${r.name.padEnd(14)} ${r.detail}\n`);
      if (results.some((r) => r.status === 'fail')) process.exitCode = 1;
    });
}
