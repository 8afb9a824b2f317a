/** Compiles a JSON Schema of schemas/ (2020-12) once, from source or compiled code alike. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { packageRoot } from '../client/package-root.js';

export type Validator = ReturnType<Ajv2020['compile']>;

const compiled = new Map<string, Validator>();

export function schemaValidator(name: string): Validator {
  let validate = compiled.get(name);
  if (!validate) {
    // The schemas stay in schemas/ at the package root; they are not copied into dist/.
    const file = join(packageRoot(), 'schemas', name);
    let schema: object;
    try {
      schema = JSON.parse(readFileSync(file, 'utf8')) as object;
    } catch {
      throw new Error(`schemas/${name} is missing`);
    }
    // Checked against the meta-schema by the project's tests, not on every run (its compile was most of a run's profile check).
    validate = new Ajv2020({ allErrors: false, strict: false, validateSchema: false }).compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}
