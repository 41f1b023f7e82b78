// The malformed inputs the fuzzer sends, as data: ids, JSON texts, content types, authorization
// headers and query strings that a careless or hostile client might produce.

/** Stand-ins for one path parameter: unknown, too long, badly percent-encoded, path tricks. */
export const ID_VARIANTS = [
  'fuzz-unknown-id',
  'a'.repeat(100),
  'b'.repeat(256),
  'c'.repeat(300),
  '%ff',
  '%',
  '%zz',
  '%E2%82',
  '%C3%BF',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  "x'%22%3Cscript%3E",
  '%20',
  '0',
  '-1',
];

/** Raw JSON texts that are not JSON. */
export const INVALID_JSON = [
  '{',
  '}',
  '{"a":}',
  '[1,]',
  'nul',
  '{"a":1}garbage',
  "{'a':1}",
  '\uFEFF{"a":1}',
  '{"a":"\\x"}',
  '"unterminated',
  '{"a":1,"a":',
  'NaN',
];

/** Raw JSON values substituted for a field of a valid body: every wrong type, and edge numbers. */
export const WRONG_VALUES = [
  '0',
  '-1',
  '""',
  '[]',
  'true',
  'null',
  '{}',
  '1.5',
  '1e400',
  '-0',
  '"\\u0000"',
  '[null]',
  '[[]]',
  '{"type":null}',
  `"${'z'.repeat(5000)}"`,
];

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/xml',
  'application/jsonx',
  'application/merge-patch+json',
  ';;;',
  '',
];

export const QUERIES = [
  'wait=abc',
  'wait=-1',
  'wait=1e400',
  'wait=999999999999',
  'wait=1000&wait=2000',
  'ttl=x',
  'ttl=-5',
  'tail=-5',
  'tail=abc',
  'follow=maybe',
  'source=nothing',
  'batch_size=0',
  'batch_size=99999999999999999999',
  'job_id=%ff',
  'status=unhealthy&reason=%ff',
  '%ff=1',
  'a=%ff',
  'include=AVAILABILITY&include=x',
  'vcpuCount=-2',
  'count=NaN',
  'isStream=maybe',
  `long=${'q'.repeat(8000)}`,
];

/** Authorization header values that are not a usable key. */
export const BAD_AUTHORIZATIONS = [
  'Bearer',
  'Bearer ',
  'Basic Zm9vOmJhcg==',
  'Bearer gantry_short',
  `Bearer gantry_${'a'.repeat(12)}_${'b'.repeat(43)}`,
  `Bearer ${'k'.repeat(8000)}`,
  'gantry_wk_unknown_secret',
  'Bearer\tgantry_tab',
];

/** Nesting `depth` levels of arrays or objects: a parser or validator that recurses may overflow. */
export function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
