// Seals short secrets (registry passwords today, per-account secrets later) with AES-256-GCM
// before they reach the store. Each value gets a fresh random nonce. A sealed value is text:
//   gsb1.<key id>.<nonce, base64url>.<ciphertext and tag, base64url>
// The version prefix lets the format change without guessing; the key id lets a process with the
// wrong key say so instead of failing the tag check; the caller's context (say
// "registry-auth:<id>") is authenticated too, so a sealed value copied onto another row will not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'gsb1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

export class SecretBox {
  /** Names the key without revealing it, so sealed values say which key they need. */
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`a secret key is ${KEY_BYTES} bytes, got ${key.length}`);
    this.keyId = createHash('sha256').update('gantry secret box key id\0').update(key).digest('hex').slice(0, 8);
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.keyId, nonce.toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, keyId, nonceText, bodyText, ...rest] = sealed.split('.');
    if (version !== VERSION || !keyId || !nonceText || !bodyText || rest.length > 0) {
      throw new SecretBoxError(`not a sealed value of a known format (expected ${VERSION})`);
    }
    if (keyId !== this.keyId) {
      throw new SecretBoxError(`sealed with another secret key (key id ${keyId}; this process has ${this.keyId})`);
    }
    const nonce = Buffer.from(nonceText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new SecretBoxError('a sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('a sealed value does not open: it was altered or belongs to another record');
    }
  }
}

export const SECRET_KEY_BYTES = KEY_BYTES;
