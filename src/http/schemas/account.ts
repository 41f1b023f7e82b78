// Schemas of the account group: the account's SSH public keys.
import { Type } from '@sinclair/typebox';

const AuthorizedKey = Type.String({
  pattern: '^(ssh|ecdsa|sk)-[^\\s]+ [^\\s]+([ \\t][^\\n\\r]*)?$',
  'x-pattern-message': 'must be one authorized_keys line: <type> <base64 key> [comment], such as ssh-ed25519 AAAA... me@laptop',
  description: 'An authorized_keys line: <type> <base64 key> [comment]',
});

export const SshKeysResponse = Type.Object(
  { keys: Type.Array(Type.String(), { description: "The account's SSH public keys, in the order they were set" }) },
  { $id: 'SshKeys' },
);

export const UpdateSshKeysBody = Type.Object(
  { keys: Type.Array(AuthorizedKey, { description: 'The whole new set: keys not listed are removed; [] removes all' }) },
  { additionalProperties: false, $id: 'UpdateSshKeysRequest' },
);
