// Which of an account's endpoints and templates reference a secret. References sit inside env
// values of the JSON specs, in a syntax SQL cannot match exactly (optional spaces, several in a
// value), so the adapters narrow the rows down by text and the domain rule decides.
import { referencedSecretNames } from '../../domain/secret-references.js';

export interface SpecRow {
  id: string;
  /** The spec as stored: JSON text. */
  spec: string;
}

/** The text every referencing spec contains; names hold no character JSON escapes. */
export const referenceText = (name: string) => `RUNPOD_SECRET_${name}`;

/** The ids of the rows whose env references `name`, in the rows' order. */
export function idsReferencing(rows: readonly SpecRow[], name: string): string[] {
  return rows
    .filter((row) => referencedSecretNames((JSON.parse(row.spec) as { env?: Record<string, string> }).env ?? {}).includes(name))
    .map((row) => row.id);
}
