// Request validation with Ajv: every failure is reported (allErrors), nothing is coerced or
// dropped from bodies, and each failure becomes one `path: message` line for problem+json.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { NO_NUL_PATTERN, refusingNul } from './no-nul.js';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(forQuery: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    discriminator: true,
    coerceTypes: forQuery ? 'array' : false,
    useDefaults: forQuery,
    removeAdditional: false,
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** Another body validator, configured the same, for bodies built in code (the GraphQL edge's REST bodies). */
const builtBodyAjv = makeAjv(false);
const builtBodyValidators = new WeakMap<object, ValidateFunction>();

/** Checks a body built in code against a route's body schema exactly as the route would. */
export function compileBodyValidator(schema: object): ValidateFunction {
  let validate = builtBodyValidators.get(schema);
  if (!validate) {
    validate = builtBodyAjv.compile(refusingNul(schema));
    builtBodyValidators.set(schema, validate);
  }
  return validate;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  return ajv.compile(refusingNul(schema)) as ValidateFunction;
};

/** `/gpu/excludedTypes/1` -> `gpu.excludedTypes[1]`; the root is `body` (or the request part). */
export function toFieldPath(pointer: string, root: string): string {
  if (pointer === '') return root;
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

function join(path: string, property: string, root: string): string {
  return path === root ? property : `${path}.${property}`;
}

/** One readable line per failure; structural noise (if/then, anyOf wrappers) is left out. */
export function describeValidationErrors(errors: ErrorObject[], root = 'body'): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = toFieldPath(error.instancePath, root);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'if':
      case 'anyOf':
      case 'oneOf':
        continue;
      case 'additionalProperties':
        lines.push(`${join(path, String(params.additionalProperty), root)}: unknown property`);
        break;
      case 'required':
        lines.push(`${join(path, String(params.missingProperty), root)}: is required`);
        break;
      case 'dependentRequired':
      case 'dependencies':
        lines.push(`${join(path, String(params.missingProperty), root)}: is required when ${String(params.property)} is set`);
        break;
      case 'uniqueItems':
        lines.push(
          `${path}[${Math.max(Number(params.i), Number(params.j))}]: duplicates ${path}[${Math.min(Number(params.i), Number(params.j))}]`,
        );
        break;
      case 'pattern': {
        // A schema may say in words what its pattern asks (x-pattern-message); a regular expression is no message.
        const said = (error.parentSchema as { 'x-pattern-message'?: string } | undefined)?.['x-pattern-message'];
        if (params.pattern === NO_NUL_PATTERN) lines.push(`${path}: must not contain a NUL character`);
        else lines.push(`${path}: ${said ?? error.message ?? 'is invalid'}`);
        break;
      }
      case 'enum':
        lines.push(`${path}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
        break;
      case 'discriminator':
        lines.push(
          params.error === 'mapping'
            ? `${join(path, String(params.tag), root)}: must be one of ${discriminatorValues(error, String(params.tag))}`
            : `${join(path, String(params.tag), root)}: is required and must be a string`,
        );
        break;
      default:
        lines.push(`${path}: ${error.message ?? 'is invalid'}`);
    }
  }
  return [...new Set(lines)];
}

/** The tag values a discriminated oneOf accepts, read from the schema the error came from. */
function discriminatorValues(error: ErrorObject, tag: string): string {
  const parent = error.parentSchema as { oneOf?: { properties?: Record<string, { const?: unknown; enum?: unknown[] }> }[] };
  const values = (parent?.oneOf ?? []).flatMap((branch) => {
    const property = branch.properties?.[tag];
    return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
  });
  return values.map(String).join(', ');
}
