// A job's input and a result's output are kept as the client wrote them where parsing and writing
// them again would change them: an integer past 2^53 loses digits in a JavaScript number, and 1.0
// or 1e3 comes back as 1 or 1000, an integer where a Python worker or client had a float. Finding
// a member's text in a document already parsed is a scan with native searches, not a second parse.

/** Whether the text holds a number that parsing and writing again might change (strings may match too: then the source is read, harmlessly). */
export function mayChangeNumbers(text: string): boolean {
  return /\d{16}|\d\.0+(?![0-9])|\d[eE]/.test(text);
}

/** The end (exclusive) of the string starting at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

const STRUCTURE = /["[\]{}]/g;
const SCALAR_END = /[,\]}\s]/g;
const WHITESPACE = /\S/g;

function skipSpace(text: string, at: number): number {
  WHITESPACE.lastIndex = at;
  return WHITESPACE.exec(text)?.index ?? text.length;
}

/** The end (exclusive) of the value starting at `start`. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== '{' && first !== '[') {
    SCALAR_END.lastIndex = start;
    return SCALAR_END.exec(text)?.index ?? text.length;
  }
  let depth = 0;
  let at = start;
  for (;;) {
    STRUCTURE.lastIndex = at;
    const found = STRUCTURE.exec(text);
    if (!found) return text.length;
    const char = found[0];
    if (char === '"') {
      at = stringEnd(text, found.index);
      continue;
    }
    depth += char === '{' || char === '[' ? 1 : -1;
    at = found.index + 1;
    if (depth === 0) return at;
  }
}

/** The span of one member of the object or element of the array at `start`; the last of equal keys, as JSON.parse keeps. */
function childSpan(text: string, start: number, step: string | number): [number, number] | undefined {
  const isObject = text[start] === '{';
  if (isObject !== (typeof step === 'string')) return undefined;
  let found: [number, number] | undefined;
  let at = skipSpace(text, start + 1);
  for (let index = 0; at < text.length && text[at] !== '}' && text[at] !== ']'; index++) {
    let key: string | undefined;
    if (isObject) {
      const keyEnd = stringEnd(text, at);
      const raw = text.slice(at + 1, keyEnd - 1);
      key = raw.includes('\\') ? (JSON.parse(text.slice(at, keyEnd)) as string) : raw;
      at = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    }
    const end = valueEnd(text, at);
    if (isObject ? key === step : index === step) found = [at, end];
    at = skipSpace(text, end);
    if (text[at] === ',') at = skipSpace(text, at + 1);
  }
  return found;
}

/** The source text of the value at `path` in a valid JSON document; undefined when there is none. */
export function jsonSourceAt(text: string, path: readonly (string | number)[]): string | undefined {
  let span: [number, number] | undefined = [skipSpace(text, 0), text.length];
  for (const step of path) {
    span = childSpan(text, span[0], step);
    if (!span) return undefined;
  }
  return text.slice(span[0], valueEnd(text, span[0]));
}
