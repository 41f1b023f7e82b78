// Standard Webhooks signatures (https://www.standardwebhooks.com): a receiver checks that a
// delivery came from Gantry and was not replayed. The secret is `whsec_` and base64 of 32 random
// bytes; the signature is HMAC-SHA256, keyed with those bytes, of "<id>.<timestamp>.<body>".
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface SignedDelivery {
  /** The same for every attempt of one delivery, so a receiver can drop duplicates. */
  id: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string;
}

/** The three headers of a signed delivery. */
export function signatureHeaders(secret: string, delivery: SignedDelivery): Record<string, string> {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${delivery.id}.${delivery.timestamp}.${delivery.body}`).digest('base64');
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(delivery.timestamp),
    'webhook-signature': `v1,${signature}`,
  };
}
