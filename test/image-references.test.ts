// Image references as Docker's grammar has them: what an endpoint, template or pod may name, so
// that a reference the engine would refuse at every start is refused when it is saved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkImageReference } from '../src/domain/container.js';
import { Violations } from '../src/domain/errors.js';

const problems = (image: string): string[] => {
  const v = new Violations();
  checkImageReference(image, v);
  try {
    v.throwIfAny();
    return [];
  } catch (error) {
    return (error as { errors?: string[] }).errors ?? [];
  }
};

test('registries with a dot, a port or as localhost, lower-case paths, tags and digests pass', () => {
  for (const image of [
    'python',
    'acme/worker:1',
    'localhost:5000/team/worker:1.0-cu12',
    '127.0.0.1:18250/x/y:v1',
    'registry.example.com/acme/private:1',
    `ghcr.io/acme/worker@sha256:${'a'.repeat(64)}`,
    'a__b/c-d.e_f:TAG_1',
    '[::1]:5000/x:1',
  ]) {
    assert.deepEqual(problems(image), [], image);
  }
});

test('what the engine would refuse is refused, naming the image; an empty one says so', () => {
  for (const image of ['Acme/worker:1', 'acme/worker:a tag', 'acme//worker', 'worker:', 'Has Spaces!!', `x:${'a'.repeat(129)}`]) {
    assert.deepEqual(problems(image), [
      `image: '${image}' is not an image reference: [registry[:port]/]name[:tag][@digest], the name in lower case, such as ghcr.io/acme/worker:1.2`,
    ]);
  }
  assert.deepEqual(problems('  '), ['image: must not be empty']);
});
