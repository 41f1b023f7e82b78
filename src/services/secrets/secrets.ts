// The deployment's secrets box, with its key chosen once: the --secret-key setting when given,
// else (on SQLite only) a key file in the data directory made on first use. PostgreSQL replicas
// each have their own data directory, so there a key file would give each replica a different
// key: without the setting, sealing and opening refuse with the reason (see decision 0012).
import { join } from 'node:path';
import { ApiError } from '../../domain/errors.js';
import { SecretBox } from './secret-box.js';
import { readOrCreateKeyFile } from './key-file.js';

export const KEY_FILE_NAME = 'secret.key';

export interface SecretKeySource {
  /** The --secret-key setting: 32 bytes, base64 (checked when the settings were read). */
  secretKey: string | undefined;
  dataDir: string;
  /** Whether other processes (PostgreSQL replicas) open what this one seals. */
  shared: boolean;
}

export class Secrets {
  /** Why this process cannot seal or open secrets, or undefined when it can. */
  readonly unavailable: string | undefined;
  private box: SecretBox | undefined;

  constructor(private readonly source: SecretKeySource) {
    this.unavailable =
      source.shared && source.secretKey === undefined
        ? 'stored secrets need --secret-key (GANTRY_SECRET_KEY), the same on every replica, when replicas share PostgreSQL; none is set'
        : undefined;
  }

  /** Where the key comes from, for logs and `gantry doctor`; never the key itself. */
  describeKey(): string {
    if (this.source.secretKey !== undefined) return 'the --secret-key setting';
    return this.unavailable ? 'none' : `the key file ${join(this.source.dataDir, KEY_FILE_NAME)}`;
  }

  seal(plaintext: string, context: string): string {
    return this.opened().seal(plaintext, context);
  }

  open(sealed: string, context: string): string {
    return this.opened().open(sealed, context);
  }

  private opened(): SecretBox {
    if (this.unavailable) throw new ApiError(503, this.unavailable);
    this.box ??= new SecretBox(
      this.source.secretKey !== undefined
        ? Buffer.from(this.source.secretKey, 'base64')
        : readOrCreateKeyFile(join(this.source.dataDir, KEY_FILE_NAME)),
    );
    return this.box;
  }
}
