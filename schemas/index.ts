/**
 * JSON Schema (2020-12) validators for envelopes, data shapes, events, the filter and the objects
 * the spec shows. The vendor word of D-Bus names differs per target, so the schema files carry a
 * `{ns}` placeholder that is filled in (regex-escaped in patterns) before compiling; compiled
 * validators are cached per namespace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Schema name → file in schemas/. */
export const SCHEMA_FILES = {
  envelope: 'envelope.schema.json',
  envelopeOk: 'envelope-ok.schema.json',
  envelopeError: 'envelope-error.schema.json',
  errorData: 'error-data.schema.json',
  attributeMap: 'attribute-map.schema.json',
  bareValue: 'bare-value.schema.json',
  pathArray: 'path-array.schema.json',
  enumerateMap: 'enumerate-map.schema.json',
  propertiesChanged: 'properties-changed.schema.json',
  interfacesAdded: 'interfaces-added.schema.json',
  event: 'event.schema.json',
  filter: 'filter.schema.json',
  inventorySystem: 'inventory-system.schema.json',
  timeElapsed: 'time-elapsed.schema.json',
  timeOwner: 'time-owner.schema.json',
  timeSyncMethod: 'time-sync-method.schema.json',
  hostState: 'host-state.schema.json',
  versionId: 'version-id.schema.json',
  loginBody: 'login-body.schema.json',
} as const;

export type SchemaName = keyof typeof SCHEMA_FILES;
export const SCHEMA_NAMES = Object.keys(SCHEMA_FILES) as SchemaName[];

export interface CheckResult {
  ok: boolean;
  /** Readable problems, each naming the instance path ("/" is the value itself). */
  errors: string[];
}

export type Validators = { readonly [K in SchemaName]: (value: unknown) => CheckResult } & {
  readonly namespace: string;
  check(name: SchemaName, value: unknown): CheckResult;
};

const PLACEHOLDER = '{ns}';
const cache = new Map<string, Validators>();
let rawSchemas: Map<SchemaName, unknown> | undefined;

/** Validators for targets whose D-Bus names use `xyz.<namespace>.` (e.g. openbmc_project). */
export function validators(namespace: string): Validators {
  let v = cache.get(namespace);
  if (!v) {
    v = compile(namespace);
    cache.set(namespace, v);
  }
  return v;
}

/** schemas/ of the package, found from this file whether it runs from source or from dist/. */
export function schemaDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'schemas', SCHEMA_FILES.envelope))) {
      return join(dir, 'schemas');
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('The schemas directory next to package.json was not found.');
    dir = parent;
  }
}

function loadRaw(): Map<SchemaName, unknown> {
  if (!rawSchemas) {
    const dir = schemaDir();
    rawSchemas = new Map(SCHEMA_NAMES.map((name) => [name, JSON.parse(readFileSync(join(dir, SCHEMA_FILES[name]), 'utf8')) as unknown]));
  }
  return rawSchemas;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Fills in the namespace: regex-escaped inside `pattern`, literally elsewhere. */
function withNamespace(node: unknown, namespace: string, key?: string): unknown {
  if (typeof node === 'string') {
    return node.split(PLACEHOLDER).join(key === 'pattern' ? escapeRegex(namespace) : namespace);
  }
  if (Array.isArray(node)) return node.map((item) => withNamespace(item, namespace));
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = withNamespace(v, namespace, k);
    return out;
  }
  return node;
}

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
// ajv-formats is CommonJS; depending on the loader its function is the default export or `.default`.
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

function compile(namespace: string): Validators {
  // The files are checked against the 2020-12 meta-schema by the project's tests, not again on every
  // run: compiling the meta-schema was a tenth of a short run's schema work.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false });
  addFormats(ajv);
  const raw = loadRaw();
  for (const name of SCHEMA_NAMES) ajv.addSchema(withNamespace(raw.get(name), namespace) as object);
  // Each validator is compiled when first used: a run of a few areas needs a few of them, and
  // compiling all is a good part of a short run's start-up.
  const compiled = new Map<SchemaName, ValidateFunction>();
  const validatorOf = (name: SchemaName): ValidateFunction => {
    let fn = compiled.get(name);
    if (!fn) {
      if (!raw.has(name)) throw new RangeError(`Unknown schema ${name}.`);
      const id = (raw.get(name) as { $id: string }).$id;
      fn = ajv.getSchema(id);
      if (!fn) throw new Error(`Schema ${name} (${id}) did not compile.`);
      compiled.set(name, fn);
    }
    return fn;
  };

  const check = (name: SchemaName, value: unknown): CheckResult => {
    const fn = validatorOf(name);
    const ok = fn(forSchema(value)) as boolean;
    return { ok, errors: ok ? [] : formatErrors(fn.errors ?? []) };
  };
  const named = Object.fromEntries(SCHEMA_NAMES.map((name) => [name, (value: unknown) => check(name, value)]));
  return { ...named, namespace, check } as Validators;
}

/**
 * ajv knows no bigint: validate a copy where each bigint is a number of the same integer-ness.
 * Only the JSON type matters here; huge values become the largest finite double of their sign.
 */
export function forSchema(value: unknown): unknown {
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isFinite(n) ? n : value < 0n ? -Number.MAX_VALUE : Number.MAX_VALUE;
  }
  if (Array.isArray(value)) return value.map(forSchema);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: forSchema(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Turns ajv errors into lines like `/Cached: must be equal to one of: 0, 1; or must be boolean`. */
export function formatErrors(errors: readonly ErrorObject[]): string[] {
  // Errors inside an anyOf/oneOf are folded into one line for that keyword.
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const within = (e: ErrorObject, u: ErrorObject): boolean =>
    e !== u && e.instancePath === u.instancePath && e.schemaPath.startsWith(`${u.schemaPath}/`);
  const lines: string[] = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue; // the failing `then` branch is reported instead
    if (e.keyword === 'propertyNames') continue; // the failing name is reported by its own error
    if (unions.some((u) => within(e, u))) continue;
    const where = `${e.instancePath || '/'}${e.propertyName !== undefined ? ` member name ${JSON.stringify(e.propertyName)}` : ''}`;
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      const options = errors.filter((x) => within(x, e)).map(describe);
      lines.push(`${where}: ${options.length ? [...new Set(options)].join('; or ') : e.message}`);
    } else {
      lines.push(`${where}: ${describe(e)}`);
    }
  }
  return [...new Set(lines)];
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) {
    return `must be one of: ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (e.keyword === 'const') return `must be ${JSON.stringify(p.allowedValue)}`;
  if (e.keyword === 'additionalProperties') return `has unexpected member "${String(p.additionalProperty)}"`;
  return e.message ?? e.keyword;
}
