// GraphQL inputs are turned into the bodies REST v2 takes and checked by the very same schemas,
// so both interfaces accept and refuse the same things. Failures name REST fields; the
// resolvers rename the ones GraphQL calls otherwise.
import type { Static, TSchema } from '@sinclair/typebox';
import { ApiError } from '../problem.js';
import { compileBodyValidator, describeValidationErrors } from '../validation.js';

/** The body as the route would accept it, or a 422 listing every failure (as REST answers). */
export function restBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  const validate = compileBodyValidator(schema);
  if (validate(body)) return body as Static<T>;
  throw new ApiError(422, 'the input failed validation', describeValidationErrors(validate.errors ?? []));
}

/**
 * REST field path prefix and the GraphQL input field it comes from; longer prefixes first. A
 * GraphQL field that is a comma-separated string (`list`) does not keep REST's item indexes: the
 * REST arrays are drawn from it in another order.
 */
export type FieldNames = readonly (readonly [rest: string, graphql: string, kind?: 'list'])[];

const escaped = (text: string) => text.replace(/[.[\]]/g, '\\$&');

/** One failure line under GraphQL's names: its field, and REST fields its message names. */
function rename(line: string, names: FieldNames): string {
  const colon = line.indexOf(': ');
  let [field, message] = colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon)];
  for (const [rest, graphql, kind] of names) {
    if (field.startsWith(rest) && /^($|[.[ ])/.test(field.slice(rest.length))) {
      const tail = field.slice(rest.length);
      field = graphql + (kind === 'list' ? tail.replace(/^\[\d+\]/, '') : tail);
      break;
    }
  }
  // Only names no message uses as plain words: dotted paths and camelCase ones.
  for (const [rest, graphql] of names) {
    if (/[.A-Z]/.test(rest)) message = message.replace(new RegExp(`(?<![\\w.])${escaped(rest)}(?![\\w.[])`, 'g'), graphql);
  }
  return field + message;
}

/** Runs `work`; the field failures of an ApiError it raises are renamed to GraphQL's fields. */
export async function withGraphQLFieldNames<T>(names: FieldNames, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || !error.errors) throw error;
    throw new ApiError(
      error.status,
      error.message,
      error.errors.map((line) => rename(line, names)),
      error.headers,
    );
  }
}

/** `"a, b,,c"` -> `['a', 'b', 'c']`: the comma-separated lists GraphQL uses where REST has arrays. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * REST names a variable's failures `env.<key>`; GraphQL sends a list, so they are named by the
 * entry, `env[i]`. Longer keys first: `env.A` must not claim `env.A B`'s failures.
 */
export function envFieldNames(env: readonly { key: string }[] | null | undefined): FieldNames {
  const entries = new Map<string, number>();
  env?.forEach(({ key }, i) => entries.set(key, i));
  return [...entries].sort(([a], [b]) => b.length - a.length).map(([key, i]) => [`env.${key}`, `env[${i}]`] as const);
}

/** `[{key, value}]` -> `{key: value}`; a key listed twice is refused rather than silently dropped. */
export function envRecord(env: readonly { key: string; value: string }[]): Record<string, string> {
  const record: Record<string, string> = {};
  const repeated: string[] = [];
  env.forEach(({ key, value }, i) => {
    if (Object.hasOwn(record, key)) repeated.push(`env[${i}].key: '${key}' is listed twice`);
    record[key] = value;
  });
  if (repeated.length > 0) throw new ApiError(422, 'the input failed validation', repeated);
  return record;
}
