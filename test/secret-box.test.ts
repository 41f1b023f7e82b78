// The secrets box: what it seals opens again only with the same key and the same context, every
// sealing differs, and where the key comes from (the setting, a key file made once and kept
// private, or nowhere on PostgreSQL without the setting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '../src/services/secrets/secret-box.js';
import { KEY_FILE_NAME, Secrets } from '../src/services/secrets/secrets.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { checkSecretKey } from '../src/doctor/secret-checks.js';

const box = new SecretBox(randomBytes(32));

test('a sealed value opens to the plaintext, holds none of it, and differs each time', () => {
  const first = box.seal('correct-horse-battery-staple', 'registry-auth:r1');
  const second = box.seal('correct-horse-battery-staple', 'registry-auth:r1');
  assert.notEqual(first, second, 'a fresh nonce per value');
  assert.ok(!first.includes('correct-horse'), first);
  assert.match(first, /^gsb1\.[0-9a-f]{8}\./, 'versioned, naming its key');
  assert.equal(box.open(first, 'registry-auth:r1'), 'correct-horse-battery-staple');
  assert.equal(box.open(box.seal('', 'c'), 'c'), '', 'empty values too');
});

test('a value refuses to open under another context, another key, or altered', () => {
  const sealed = box.seal('s3cret', 'registry-auth:r1');
  assert.throws(() => box.open(sealed, 'registry-auth:r2'), /altered or belongs to another record/);
  assert.throws(() => new SecretBox(randomBytes(32)).open(sealed, 'registry-auth:r1'), /sealed with another secret key/);
  const parts = sealed.split('.');
  const body = Buffer.from(parts[3]!, 'base64url');
  body[0] = body[0]! ^ 1;
  assert.throws(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'registry-auth:r1'), /altered/);
  assert.throws(() => box.open('plain text', 'registry-auth:r1'), /known format/);
});

test('without --secret-key a SQLite deployment makes a private key file once and keeps using it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-secrets-'));
  try {
    const secrets = new Secrets({ secretKey: undefined, dataDir, shared: false });
    assert.equal(secrets.unavailable, undefined);
    const sealed = secrets.seal('pw', 'ctx');
    const file = join(dataDir, KEY_FILE_NAME);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'only the owner reads the key');
    assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
    const restarted = new Secrets({ secretKey: undefined, dataDir, shared: false });
    assert.equal(restarted.open(sealed, 'ctx'), 'pw', 'the next start reads the same key');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the setting is the key when given; PostgreSQL replicas without it refuse to seal, saying why', () => {
  const key = randomBytes(32).toString('base64');
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-secrets-'));
  try {
    const a = new Secrets({ secretKey: key, dataDir, shared: true });
    const b = new Secrets({ secretKey: key, dataDir: join(dataDir, 'other'), shared: true });
    assert.equal(b.open(a.seal('pw', 'ctx'), 'ctx'), 'pw', "replicas with one key open each other's values");
    assert.throws(() => statSync(join(dataDir, KEY_FILE_NAME)), 'no key file is made');
    const keyless = new Secrets({ secretKey: undefined, dataDir, shared: true });
    assert.match(keyless.unavailable ?? '', /--secret-key \(GANTRY_SECRET_KEY\), the same on every replica/);
    assert.throws(() => keyless.seal('pw', 'ctx'), { status: 503, message: keyless.unavailable });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('--secret-key must be 32 bytes of base64, and a bad one is not echoed', () => {
  assert.equal(loadConfig({ secretKey: Buffer.alloc(32, 7).toString('base64') }, {}).secretKey, Buffer.alloc(32, 7).toString('base64'));
  assert.equal(loadConfig({}, {}).secretKey, undefined);
  assert.throws(
    () => loadConfig({}, { GANTRY_SECRET_KEY: 'too-short-secret' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /--secret-key \(GANTRY_SECRET_KEY\) must be 32 bytes in base64/);
      assert.ok(!error.message.includes('too-short-secret'));
      return true;
    },
  );
  assert.throws(() => loadConfig({ secretKey: Buffer.alloc(16).toString('base64') }, {}), /got 16 bytes/);
});

test('gantry doctor warns about replicas without a key and a key file others can read', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-secrets-'));
  try {
    const postgres = { database: 'postgres://gantry@db/gantry', dataDir };
    assert.equal(checkSecretKey(loadConfig(postgres, {})).status, 'warn');
    assert.match(checkSecretKey(loadConfig(postgres, {})).detail, /give every replica the same --secret-key/);
    assert.equal(checkSecretKey(loadConfig({ ...postgres, secretKey: randomBytes(32).toString('base64') }, {})).status, 'ok');
    assert.equal(checkSecretKey(loadConfig({ dataDir }, {})).status, 'ok', 'a key file will be made');
    new Secrets({ secretKey: undefined, dataDir, shared: false }).seal('pw', 'ctx');
    assert.equal(checkSecretKey(loadConfig({ dataDir }, {})).status, 'ok');
    chmodSync(join(dataDir, KEY_FILE_NAME), 0o644);
    assert.match(checkSecretKey(loadConfig({ dataDir }, {})).detail, /readable by others \(mode 0644\): chmod 600 it/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
