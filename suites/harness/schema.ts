/** Validation of a value against one of the spec's JSON Schemas, as a check failure. */
import { ensure } from './assert.js';
import type { CheckContext } from './check.js';
import type { SchemaName } from '../../schemas/index.js';

export function expectSchema(t: CheckContext, name: SchemaName, value: unknown, what: string): void {
  const result = t.schemas.check(name, value);
  ensure(result.ok, `${what} does not match the spec's shape (${name}): ${result.errors.join('; ')}`);
}
