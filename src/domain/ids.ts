import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random lowercase alphanumeric id; rejection sampling keeps every character equally likely. */
export function randomId(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += ALPHABET[byte % 36];
    }
  }
  return out;
}

export const newEndpointId = () => randomId(14);
export const newTemplateId = () => randomId(10);
export const newRegistryAuthId = () => randomId(10);
export const newAccountId = () => `acct_${randomId(12)}`;

/**
 * A UUID of version 7: the time in ms, then 74 random bits. Ids made one after another sort
 * together, so the index on them grows at one end instead of at a random page per insert.
 */
export function timeOrderedUuid(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // randomUUID()'s version digit is at 14; everything after it (variant included) is kept.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
