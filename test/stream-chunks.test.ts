// Splitting streamed output into chunks that fit, and joining them back as the docs describe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitStreamChunk, type ChunkPart } from '../src/domain/stream-chunks.js';

const LIMIT = 64;
const fits = (chunks: string[]) => chunks.every((c) => Buffer.byteLength(c) <= LIMIT);

test('a value that fits is one chunk, unchanged', () => {
  assert.deepEqual(splitStreamChunk({ a: 1 }, LIMIT), ['{"a":1}']);
  assert.deepEqual(splitStreamChunk(undefined, LIMIT), ['null']);
});

test('a long string becomes strings that concatenate to it, whatever JSON spends on escapes', () => {
  for (const text of ['x'.repeat(500), '"\\'.repeat(200), '\u0001\n'.repeat(150), 'é😀'.repeat(100), '\ud800a'.repeat(80)]) {
    const chunks = splitStreamChunk(text, LIMIT);
    assert.ok(chunks.length > 1);
    assert.ok(fits(chunks), `every chunk of ${JSON.stringify(text.slice(0, 4))}... fits`);
    assert.equal(chunks.map((c) => JSON.parse(c) as string).join(''), text);
  }
});

test('any other value becomes numbered parts whose json texts join into the value', () => {
  const value = { list: Array.from({ length: 40 }, (_, i) => ({ i, s: '"quoted"' })) };
  const chunks = splitStreamChunk(value, 200);
  assert.ok(chunks.every((c) => Buffer.byteLength(c) <= 200));
  const parts = chunks.map((c) => (JSON.parse(c) as ChunkPart).gantryPart);
  assert.ok(parts.length > 1);
  assert.ok(parts.every((p, index) => p.index === index && p.count === parts.length && p.of === parts[0]!.of));
  assert.deepEqual(JSON.parse(parts.map((p) => p.json).join('')), value);
});
