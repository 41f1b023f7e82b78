// Schemas of the account's API keys: the list, the create body and the one-time secret.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';

const Permission = StringEnum(['full', 'read', 'endpoints'], {
  description: 'full: everything; read: GET only; endpoints: only the queues of endpointIds',
});
const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const ApiKeyResponse = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    permission: Permission,
    endpointIds: Type.Array(Type.String()),
    rateLimitExempt: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Instant,
    revokedAt: Instant,
    status: StringEnum(['ACTIVE', 'EXPIRED', 'REVOKED']),
  },
  { $id: 'ApiKey', description: 'An API key as the server knows it: its secret is never stored, so never shown again' },
);

export const ApiKeysResponse = Type.Object({ keys: Type.Array(ApiKeyResponse, { description: 'Oldest first' }) });

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'A label for people' }),
    permission: Type.Optional(Permission),
    endpointIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { maxItems: 100, description: 'With permission endpoints: the endpoints it may use' }),
    ),
    expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    rateLimitExempt: Type.Optional(Type.Boolean({ description: 'Only a rate-limit-exempt key may create one' })),
  },
  { additionalProperties: false, $id: 'CreateApiKeyRequest' },
);

export const CreatedApiKeyResponse = Type.Object(
  {
    ...ApiKeyResponse.properties,
    key: Type.String({ description: 'The whole key, secret included: shown this once, never again' }),
  },
  { $id: 'CreatedApiKey' },
);

export const ApiKeyIdParams = Type.Object({ id: Type.String() });
