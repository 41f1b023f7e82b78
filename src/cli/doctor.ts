// `gantry doctor`: checks a deployment's store (connectivity, schema, notifications, replicas),
// and its Docker engine when workers run as containers, and says what is wrong. Exits 1 when a
// check fails.
import { Command } from 'commander';
import type { CheckResult } from '../doctor/checks.js';
import { SETTINGS } from '../settings/table.js';
import { helpLine } from '../settings/setting.js';
import { configFrom, withDataDir, type StoreFlags } from './options.js';

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

const ADDRESS_SETTINGS = ['port', 'host', 'replicaUrl', 'dockerNetwork', 'dockerWorkerApiUrl'] as const;
type AddressFlags = Partial<Record<(typeof ADDRESS_SETTINGS)[number], string>>;

export function doctorCommand(): Command {
  const command = withDataDir(new Command('doctor'))
    .description(
      "check the deployment's database (connectivity, schema version, notifications, replicas) and, with the docker provider, its Docker engine",
    )
    .option(SETTINGS.workerProvider.flag, helpLine(SETTINGS.workerProvider))
    .option(SETTINGS.secretKey.flag, helpLine(SETTINGS.secretKey));
  // The docker checks judge where workers call the server: given as the server was started.
  for (const setting of ADDRESS_SETTINGS) command.option(SETTINGS[setting].flag, helpLine(SETTINGS[setting]));
  return command.action(async (flags: StoreFlags & { workerProvider?: string; secretKey?: string } & AddressFlags) => {
    const config = configFrom({
      dataDir: flags.dataDir,
      database: flags.database,
      workerProvider: flags.workerProvider,
      secretKey: flags.secretKey,
      ...Object.fromEntries(ADDRESS_SETTINGS.map((setting) => [setting, flags[setting]])),
    });
    const { allChecks } = await import('../doctor/all-checks.js'); // see decision 38
    const results = await allChecks(config);
    for (const r of results) process.stdout.write(`${MARK[r.status]}  ${r.name.padEnd(14)} ${r.detail}\n`);
    if (results.some((r) => r.status === 'fail')) process.exitCode = 1;
  });
}
