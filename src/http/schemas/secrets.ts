// Schemas of per-account secrets. A value is accepted on create and rotate and never part of a response.
import { Type } from '@sinclair/typebox';
import { SECRET_NAME_MAX_LENGTH, SECRET_NAME_PATTERN } from '../../domain/secret-references.js';

const SecretName = Type.String({
  pattern: SECRET_NAME_PATTERN,
  'x-pattern-message': 'must start with a letter or _, then letters, digits, _ . or -; names starting with RUNPOD (any case) are reserved',
  maxLength: SECRET_NAME_MAX_LENGTH,
  description:
    'Unique within the account; env values reference it as {{ RUNPOD_SECRET_<name> }}. A letter or _, then letters, digits, _ . -; ' +
    'at most 191 characters; names starting with RUNPOD (any case) are reserved',
});

/** A worker gets the value as one environment variable, and Linux takes at most 128 KiB (4 bytes a character at worst) for one. */
const SecretValue = Type.String({ minLength: 1, maxLength: 32_768, description: 'The value; write-only, never returned' });

export const CreateSecretBody = Type.Object(
  { name: SecretName, value: SecretValue },
  { additionalProperties: false, $id: 'CreateSecretRequest' },
);

export const RotateSecretBody = Type.Object({ value: SecretValue }, { additionalProperties: false, $id: 'RotateSecretRequest' });

export const SecretResponse = Type.Object(
  {
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time', description: 'When the value was last set' }),
  },
  { $id: 'Secret' },
);

export const ListSecretsResponse = Type.Object({ secrets: Type.Array(SecretResponse) });

export const SecretNameParams = Type.Object({ name: Type.String() });
