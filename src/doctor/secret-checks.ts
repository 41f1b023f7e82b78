// Whether this deployment can keep secrets (registry credentials, /v2/secrets): replicas on PostgreSQL need
// one --secret-key between them; SQLite falls back to a key file that only its owner may read.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { GantryConfig } from '../config.js';
import { KEY_FILE_NAME } from '../services/secrets/secrets.js';
import type { CheckResult } from './checks.js';

export function checkSecretKey(config: GantryConfig): CheckResult {
  const name = 'secret key';
  if (config.secretKey !== undefined) return { status: 'ok', name, detail: 'set by --secret-key (GANTRY_SECRET_KEY)' };
  if (config.databaseUrl) {
    return {
      status: 'warn',
      name,
      detail: 'none: registry credentials and secrets are refused; give every replica the same --secret-key (openssl rand -base64 32)',
    };
  }
  const file = join(config.dataDir, KEY_FILE_NAME);
  const mode = fileMode(file);
  if (mode === undefined) return { status: 'ok', name, detail: `${file} will be made (mode 0600) when the first secret is stored` };
  if ((mode & 0o077) !== 0)
    return { status: 'warn', name, detail: `${file} is readable by others (mode 0${(mode & 0o777).toString(8)}): chmod 600 it` };
  return { status: 'ok', name, detail: `${file}` };
}

function fileMode(file: string): number | undefined {
  try {
    return statSync(file).mode;
  } catch {
    return undefined;
  }
}
