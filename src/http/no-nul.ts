// No text a client sends may hold a NUL character: PostgreSQL's text columns refuse one (a 500
// where SQLite stored it), and no process takes one in an argument or an environment value. Every
// string a route's schemas declare (path, query string, headers, body) gets a pattern refusing it,
// at compile time; free-form JSON (a job's input) declares no strings and is left as it is.

export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS: ReadonlySet<PropertyKey> = new Set(['enum', 'const', 'default', 'examples', 'required', 'description', 'title']);
/** Keywords whose values map names to schemas: a property may be called `title` or `default`. */
const SCHEMA_MAPS: ReadonlySet<PropertyKey> = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

function eachSchemaOf(map: unknown): unknown {
  if (typeof map !== 'object' || map === null) return map;
  return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, withNulRefused(schema)]));
}

const copies = new WeakMap<object, object>();

/**
 * A copy of `schema` whose every string schema also refuses NUL: one copy per schema, so Ajv,
 * which caches what it compiled by object and refuses a second schema of the same `$id`, sees
 * the same one each time a route (of another app in this process) compiles it.
 */
export function refusingNul<T extends object>(schema: T): T {
  let copy = copies.get(schema);
  if (!copy) {
    copy = withNulRefused(schema) as object;
    copies.set(schema, copy);
  }
  return copy as T;
}

function withNulRefused<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withNulRefused) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as Record<PropertyKey, unknown>;
  const copy: Record<PropertyKey, unknown> = {};
  for (const key of Reflect.ownKeys(source)) {
    const value = source[key];
    copy[key] = DATA_KEYWORDS.has(key) ? value : SCHEMA_MAPS.has(key) ? eachSchemaOf(value) : withNulRefused(value);
  }
  const type = copy.type;
  if (type !== 'string' && !(Array.isArray(type) && type.includes('string'))) return copy as T;
  if (copy.pattern === undefined) return { ...copy, pattern: NO_NUL_PATTERN } as T;
  // A schema holds one pattern: the second one joins through allOf.
  const allOf = Array.isArray(copy.allOf) ? copy.allOf : [];
  return { ...copy, allOf: [...allOf, { pattern: NO_NUL_PATTERN }] } as T;
}
