// Per-account secrets as env values name them, in RunPod's syntax: `{{ RUNPOD_SECRET_<name> }}`,
// spaces inside the braces optional, anywhere in a value (a value may hold several). Pure rules:
// which names a set of env values references, and the env with the references replaced.

/**
 * What a secret may be called: RunPod's rule (a letter or _, then letters, digits, _ . -; at most
 * 191 characters; no RUNPOD prefix, which RunPod reserves) without its `/`, so a name is always
 * one path segment of /v2/secrets/{name}.
 */
export const SECRET_NAME_PATTERN = '^(?![Rr][Uu][Nn][Pp][Oo][Dd])[A-Za-z_][A-Za-z0-9_.-]{0,190}$';
export const SECRET_NAME_MAX_LENGTH = 191;

/**
 * A reference takes any characters RunPod's names allow (its `/` too), so a reference to a name
 * Gantry cannot store is reported as unknown rather than passed to the worker as literal text.
 */
const REFERENCE = /\{\{\s*RUNPOD_SECRET_([A-Za-z0-9_.\-/]+)\s*\}\}/g;

/** The secret names an env references, each once, sorted. */
export function referencedSecretNames(env: Readonly<Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const value of Object.values(env)) for (const match of value.matchAll(REFERENCE)) names.add(match[1]!);
  return [...names].sort();
}

/** Which env variable references which names, for errors that point at the field: `env.HF_TOKEN`. */
export function secretReferencesByVariable(env: Readonly<Record<string, string>>): { variable: string; name: string }[] {
  return Object.entries(env).flatMap(([variable, value]) => [...value.matchAll(REFERENCE)].map((match) => ({ variable, name: match[1]! })));
}

export class MissingSecretsError extends Error {
  override readonly name = 'MissingSecretsError';

  constructor(readonly missing: string[]) {
    super(
      `${missing.length === 1 ? 'secret' : 'secrets'} ${missing.map((n) => `'${n}'`).join(', ')} referenced in the env ${missing.length === 1 ? 'does' : 'do'} not exist (any more)`,
    );
  }
}

/**
 * The env with every reference replaced by its secret's value. Fails naming every name `values`
 * lacks, and never a value.
 */
export function resolveSecretReferences(
  env: Readonly<Record<string, string>>,
  values: ReadonlyMap<string, string>,
): Record<string, string> {
  const missing = referencedSecretNames(env).filter((name) => !values.has(name));
  if (missing.length > 0) throw new MissingSecretsError(missing);
  return Object.fromEntries(
    Object.entries(env).map(([variable, value]) => [variable, value.replace(REFERENCE, (_, name: string) => values.get(name)!)]),
  );
}
