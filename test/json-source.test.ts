// Finding a member's source text in a JSON document: every value of generated documents, in
// compact and indented forms, reads back as JSON.parse reads it, and numbers keep their digits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonSourceAt, mayChangeNumbers } from '../src/domain/json-source.js';

test('numbers are kept as written; a member absent, or the wrong kind of step, is undefined', () => {
  const text = ' { "id" : 9007199254740993, "f": 1.0, "e":1e3, "list": [ 2.50 , {"input": -0.0} ], "k\\u0069y": "v\\"}{" } ';
  assert.equal(jsonSourceAt(text, ['id']), '9007199254740993');
  assert.equal(jsonSourceAt(text, ['f']), '1.0');
  assert.equal(jsonSourceAt(text, ['e']), '1e3');
  assert.equal(jsonSourceAt(text, ['list', 0]), '2.50');
  assert.equal(jsonSourceAt(text, ['list', 1, 'input']), '-0.0');
  assert.equal(jsonSourceAt(text, ['kiy']), '"v\\"}{"', 'an escaped key is read by its value');
  assert.equal(jsonSourceAt(text, ['missing']), undefined);
  assert.equal(jsonSourceAt(text, ['list', 2]), undefined);
  assert.equal(jsonSourceAt(text, [0]), undefined, 'an index into an object');
  assert.equal(jsonSourceAt('{"a": 1, "a": 2}', ['a']), '2', 'the last of equal keys, as JSON.parse');
});

test('which texts may change when parsed and written again', () => {
  for (const text of ['{"id": 12345678901234567}', '{"f": 1.0}', '{"f": 2.000}', '{"e": 1e21}', '{"e": 1.5E3}'])
    assert.ok(mayChangeNumbers(text), text);
  for (const text of ['{"n": 123456789012345}', '{"f": 1.5}', '{"f": 10.25}', '{"s": "abc"}']) assert.ok(!mayChangeNumbers(text), text);
});

/** A small random JSON value; strings include quotes, backslashes and brackets. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 6));
  if (pick === 0) return Math.floor(random() * 1e6) / (random() < 0.5 ? 1 : 100);
  if (pick === 1) return ['', 'a"b', 'c\\', '}{][', '\\"', 'é\u0001'][Math.floor(random() * 6)];
  if (pick === 2) return [true, false, null][Math.floor(random() * 3)];
  if (pick === 3) return -Math.floor(random() * 1000);
  if (pick === 4) return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}"\\`, randomValue(random, depth + 1)]));
}

function* pathsOf(value: unknown, path: (string | number)[] = []): Generator<(string | number)[]> {
  yield path;
  if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* pathsOf(item, [...path, i]);
  else if (value !== null && typeof value === 'object') for (const [k, item] of Object.entries(value)) yield* pathsOf(item, [...path, k]);
}

test('every value of 300 generated documents is found, compact and indented', () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let checked = 0;
  for (let n = 0; n < 300; n++) {
    const doc = { input: randomValue(random, 0), other: randomValue(random, 0) };
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 3)]) {
      for (const path of pathsOf(doc)) {
        const expected = path.reduce<unknown>((at, step) => (at as Record<string | number, unknown>)[step], doc);
        assert.deepEqual(JSON.parse(jsonSourceAt(text, path)!), expected, `${text} at ${JSON.stringify(path)}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 2000, `${checked} values checked`);
});
