// The secret key of a deployment that set none: 32 random bytes kept, base64, in a file only the
// owner may read. Made on first use, so a deployment that stores no secret never gets one.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SECRET_KEY_BYTES } from './secret-box.js';

export function readOrCreateKeyFile(file: string): Buffer {
  mkdirSync(dirname(file), { recursive: true });
  try {
    // 'wx' fails when the file exists, so two processes racing here both end up reading one key.
    writeFileSync(file, `${randomBytes(SECRET_KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`cannot create the secret key file ${file}: ${(error as Error).message}`);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`the secret key file ${file} does not hold ${SECRET_KEY_BYTES} base64 bytes`);
  return key;
}
