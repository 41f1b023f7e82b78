// authorized_keys entries, as an account registers its SSH public keys: `<type> <base64 blob>
// [comment]`. The blob is the key in the SSH wire format, whose first field names its own type,
// so a key pasted with the wrong type or a truncated blob is caught here, not when a pod boots.
import type { Violations } from './errors.js';

const TYPE = /^(ssh|ecdsa|sk)-\S+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Why one entry is not an authorized_keys line, or undefined when it is one. */
function problemWith(type: string, blob: string | undefined): string | undefined {
  if (!TYPE.test(type)) return `'${type}' is not an SSH key type (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256, ...)`;
  if (blob === undefined) return 'the base64 key after the type is missing';
  if (!BASE64.test(blob) || blob.length % 4 !== 0) return 'the key after the type is not base64';
  const bytes = Buffer.from(blob, 'base64');
  const nameLength = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
  if (nameLength < 0 || 4 + nameLength > bytes.length) return 'the base64 key is truncated: it does not hold a key type';
  const named = bytes.subarray(4, 4 + nameLength).toString('latin1');
  if (named !== type) return `the base64 key is of type ${named}, not ${type}`;
  return undefined;
}

/**
 * Checks every entry and answers them normalised (surrounding whitespace dropped, one space
 * between fields), in order, without repeats of a key already listed: adding a key twice keeps one.
 * Problems go to `v` as `keys[i]: ...`.
 */
export function normaliseAuthorizedKeys(entries: readonly string[], v: Violations): string[] {
  const seen = new Set<string>();
  const keys: string[] = [];
  entries.forEach((entry, i) => {
    const [type = '', blob, ...rest] = entry.trim().split(/[ \t]+/);
    const problem = problemWith(type, blob);
    if (problem) return v.add(`keys[${i}]`, problem);
    const identity = `${type} ${blob}`;
    if (seen.has(identity)) return;
    seen.add(identity);
    keys.push(rest.length > 0 ? `${identity} ${rest.join(' ')}` : identity);
  });
  return keys;
}
