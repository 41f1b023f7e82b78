// Every check `gantry doctor` runs for a configuration, in the order it prints them.
import type { GantryConfig } from '../config.js';
import { checkPostgres, checkSqlite, type CheckResult } from './checks.js';
import { checkDocker } from './docker-checks.js';
import { checkSecretKey } from './secret-checks.js';

export async function allChecks(config: GantryConfig): Promise<CheckResult[]> {
  const results = config.databaseUrl ? await checkPostgres(config) : await checkSqlite(config);
  results.push(checkSecretKey(config));
  if (config.workerProvider === 'docker') results.push(...(await checkDocker(config)));
  return results;
}
