import { randomBytes } from 'node:crypto';

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
