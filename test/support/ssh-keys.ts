// SSH public keys as authorized_keys lines, made here: a fresh ed25519 key in the SSH wire format.
import { generateKeyPairSync } from 'node:crypto';

function sshString(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** The base64 part of a key: a type name and a key body, as `ssh-keygen` writes them. */
export function keyBlob(type = 'ssh-ed25519'): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return Buffer.concat([sshString(Buffer.from(type)), sshString(raw)]).toString('base64');
}

/** A fresh ed25519 public key line, with the comment given (if any). */
export function anSshKey(comment?: string): string {
  return comment === undefined ? `ssh-ed25519 ${keyBlob()}` : `ssh-ed25519 ${keyBlob()} ${comment}`;
}
