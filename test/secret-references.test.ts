// The `{{ RUNPOD_SECRET_<name> }}` syntax: what counts as a reference, and what a worker's env
// becomes once references are replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MissingSecretsError,
  referencedSecretNames,
  resolveSecretReferences,
  SECRET_NAME_PATTERN,
} from '../src/domain/secret-references.js';

test('references are found with or without spaces inside the braces, several to a value, each name once', () => {
  const env = {
    A: '{{ RUNPOD_SECRET_hf_token }}',
    B: '{{RUNPOD_SECRET_hf_token}}',
    C: 'postgres://{{ RUNPOD_SECRET_db-user }}:{{\tRUNPOD_SECRET_db.pass }}@db',
    D: 'RUNPOD_SECRET_plain_text, { RUNPOD_SECRET_single }, {{ runpod_secret_lower }}',
  };
  assert.deepEqual(referencedSecretNames(env), ['db-user', 'db.pass', 'hf_token']);
});

test('resolving replaces every reference and leaves other text alone, even text that looks like a replacement pattern', () => {
  const values = new Map([
    ['token', 'hf_$&abc'],
    ['user', 'me'],
  ]);
  assert.deepEqual(
    resolveSecretReferences({ T: '{{ RUNPOD_SECRET_token }}', U: 'x-{{RUNPOD_SECRET_user}}-{{ RUNPOD_SECRET_user }}', P: 'plain' }, values),
    {
      T: 'hf_$&abc',
      U: 'x-me-me',
      P: 'plain',
    },
  );
});

test('resolving with names missing fails naming all of them and no value', () => {
  assert.throws(
    () =>
      resolveSecretReferences(
        { A: '{{ RUNPOD_SECRET_gone }}', B: '{{ RUNPOD_SECRET_known }} {{ RUNPOD_SECRET_also_gone }}' },
        new Map([['known', 'v4lue']]),
      ),
    (error: unknown) => {
      assert.ok(error instanceof MissingSecretsError);
      assert.deepEqual(error.missing, ['also_gone', 'gone']);
      assert.equal(error.message, "secrets 'also_gone', 'gone' referenced in the env do not exist (any more)");
      return true;
    },
  );
});

test("a secret's name follows RunPod's rule without its slash and its reserved RUNPOD prefix", () => {
  const valid = new RegExp(SECRET_NAME_PATTERN);
  for (const name of ['hf_token', 'HF-TOKEN', '_x', 'a.b-c_d', 'r'.repeat(191), 'run_pod']) assert.ok(valid.test(name), name);
  for (const name of ['', '1token', '-x', 'a/b', 'a b', 'RUNPOD_X', 'runpodKey', 'r'.repeat(192), 'ünicode'])
    assert.ok(!valid.test(name), name);
});
