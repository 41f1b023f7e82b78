// The nesting limit of every JSON document Gantry accepts. Parsing, validating and re-serialising
// are recursive somewhere along the way, so a document nested thousands of levels deep would
// overflow the stack; it is refused up front by a single iterative pass over the text instead.
// See docs/decisions/0013-json-nesting-limit.md.

/** Deepest nesting of objects and arrays accepted in a JSON document (the top level counts as 1). */
export const JSON_NESTING_LIMIT = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/** True when `text` nests objects/arrays deeper than `limit`; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, limit = JSON_NESTING_LIMIT): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (OPENERS.has(code)) {
      if (++depth > limit) return true;
    } else if (CLOSERS.has(code)) {
      depth--;
    }
  }
  return false;
}

export function nestingProblemDetail(what: string): string {
  return `${what} nests objects and arrays deeper than the limit of ${JSON_NESTING_LIMIT} levels`;
}
