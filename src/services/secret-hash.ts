// Secrets of API keys and worker credentials are kept as their SHA-256 only, and a presented
// secret is compared with it in constant time. Every authenticated request hashes one, so the
// one-shot `hash` is used: it costs a third of a `createHash` object's round.
import { hash, timingSafeEqual } from 'node:crypto';

export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Whether `secret` hashes to `storedHash` (hex), compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashSecret(secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
