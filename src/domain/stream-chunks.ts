// A streamed chunk is at most 1 MB of JSON (the contract); a worker may send more in one post.
// Larger output is split so every stored chunk fits, in a form a client can put back together:
// - a string becomes several strings: concatenated in order they are the original;
// - any other value becomes parts `{"gantryPart": {"of", "index", "count", "json"}}`: the `json`
//   texts of one `of`, joined in `index` order, are the original value's JSON text.
// Sizes count the bytes JSON spends on each character (quotes and escapes included).
import { randomId } from './ids.js';

export interface ChunkPart {
  gantryPart: { of: string; index: number; count: number; json: string };
}

/** JSON texts of the chunks to store, each at most `limitBytes`; `source` is the output's text as written, when kept. */
export function splitStreamChunk(output: unknown, limitBytes: number, source?: string): string[] {
  const text = source ?? JSON.stringify(output ?? null);
  if (Buffer.byteLength(text) <= limitBytes) return [text];
  if (typeof output === 'string') return splitString(output, limitBytes - 2).map((piece) => JSON.stringify(piece));
  const of = randomId(12);
  // Room for the envelope around each piece of text; the pieces' own escapes are counted below.
  const envelope = Buffer.byteLength(JSON.stringify({ gantryPart: { of, index: 0, count: 0, json: '' } })) + 24;
  const pieces = splitString(text, limitBytes - envelope);
  return pieces.map((json, index) => JSON.stringify({ gantryPart: { of, index, count: pieces.length, json } } satisfies ChunkPart));
}

/** Splits a string into pieces whose JSON string bodies (without quotes) fit `limitBytes`. */
function splitString(value: string, limitBytes: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let bytes = 0;
  for (const char of value) {
    const size = jsonBytes(char);
    if (bytes + size > limitBytes && current !== '') {
      pieces.push(current);
      current = '';
      bytes = 0;
    }
    current += char;
    bytes += size;
  }
  if (current !== '' || pieces.length === 0) pieces.push(current);
  return pieces;
}

/** Bytes a character takes inside a JSON string: `"` is 2, a control character 6, `é` 2. */
function jsonBytes(char: string): number {
  const code = char.codePointAt(0)!;
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return char === '\n' || char === '\r' || char === '\t' || char === '\b' || char === '\f' ? 2 : 6;
  // Lone surrogates are written as \uXXXX escapes.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return Buffer.byteLength(char);
}
