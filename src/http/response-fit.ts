// A second line of defence behind input validation: a stored row that no longer fits its response
// schema (written by an older version, or by a bug) is left out of a list and logged with its id,
// instead of failing serialisation and turning the whole list into an opaque 500.
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyBaseLogger } from 'fastify';

// ajv-formats ships CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const responseAjv = addFormats(new Ajv({ allErrors: false, strict: false }));
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = responseAjv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The items that fit `schema`; each one that does not is logged as an error with its id. */
export function keepFitting<T extends { id: string }>(items: T[], schema: TSchema, log: FastifyBaseLogger, what: string): T[] {
  const validate = validatorFor(schema);
  return items.filter((item) => {
    const fits: boolean = validate(item);
    if (fits) return true;
    log.error({ id: item.id, errors: validate.errors }, `stored ${what} ${item.id} does not fit its response schema; left out of the list`);
    return false;
  });
}
