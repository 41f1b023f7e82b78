// Schemas of container registry credentials. The username and password are accepted on create
// and never part of a response.
import { Type } from '@sinclair/typebox';

export const CreateRegistryBody = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Unique within the account' }),
    username: Type.String({ minLength: 1, description: 'Registry username; write-only, never returned' }),
    password: Type.String({ minLength: 1, description: 'Registry password or token; write-only, never returned' }),
  },
  { additionalProperties: false, $id: 'CreateRegistryRequest' },
);

export const RegistryResponse = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Registry' });

export const ListRegistriesResponse = Type.Object({ registries: Type.Array(RegistryResponse) });

export const RegistryIdParams = Type.Object({ id: Type.String() });
