// Validates responses against the hosted API's own OpenAPI document, when a copy is at hand: its
// path comes from GANTRY_REFERENCE_OPENAPI (the document is not part of this repository). Without
// it the check is skipped, visibly, and the tests still assert the behaviour itself.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const path = process.env.GANTRY_REFERENCE_OPENAPI;
let ajv: Ajv2020 | undefined;

if (!path) process.stdout.write('# hosted API schema checks SKIPPED - set GANTRY_REFERENCE_OPENAPI to the reference document\n');

function compiler(): Ajv2020 | undefined {
  if (!path) return undefined;
  if (!ajv) {
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const format of ['float', 'double', 'int32', 'int64']) ajv.addFormat(format, true);
    ajv.addSchema({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), $id: 'reference' });
  }
  return ajv;
}

/** Throws listing every way `body` breaks the reference's components/schemas/<name>. */
export function assertReferenceShape(name: string, body: unknown): void {
  const validate = compiler()?.getSchema(`reference#/components/schemas/${name}`);
  if (!compiler()) return;
  if (!validate) throw new Error(`the reference has no schema ${name}`);
  if (!validate(body)) throw new Error(`not a valid ${name}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body)}`);
}
