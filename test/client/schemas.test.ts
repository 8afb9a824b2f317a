import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMA_FILES, SCHEMA_NAMES, schemaDir, validators, type SchemaName } from '../../schemas/index.js';

const NS = 'mgmt_project';
const v = validators(NS);

const inventory = {
  AssetTag: '',
  BuildDate: '2024-01-01',
  Cached: 0,
  FieldReplaceable: 1,
  Manufacturer: 'ACME',
  Model: 'M1',
  PartNumber: 'P1',
  Present: 1,
  PrettyName: 'System',
  SerialNumber: 'S1',
};
const host = {
  AttemptsLeft: 3,
  BootProgress: `xyz.${NS}.State.Boot.Progress.ProgressStages.Unspecified`,
  CurrentHostState: `xyz.${NS}.State.Host.HostState.Off`,
  OperatingSystemState: `xyz.${NS}.State.OperatingSystem.Status.OSStatus.Inactive`,
  RequestedHostTransition: `xyz.${NS}.State.Host.Transition.Off`,
};
const propertiesChanged = {
  event: 'PropertiesChanged',
  path: `/xyz/${NS}/state/host0`,
  interface: `xyz.${NS}.State.Host`,
  properties: { CurrentHostState: host.CurrentHostState },
};
const interfacesAdded = {
  event: 'InterfacesAdded',
  path: `/xyz/${NS}/logging/entry/7`,
  interfaces: { [`xyz.${NS}.Logging.Entry`]: { Id: 7 } },
};

/** For every schema: values it must accept and values it must reject. */
const CASES: Record<SchemaName, { good: unknown[]; bad: unknown[] }> = {
  envelope: {
    good: [
      { data: {}, message: '200 OK', status: 'ok' },
      { data: { description: 'x' }, message: '404 Not Found', status: 'error' },
    ],
    bad: [
      { data: {}, message: '200 OK' },
      { data: 1, message: 'OK', status: 'ok' },
      { data: {}, message: '200 OK', status: 'fine' },
      { data: 'x', message: '500 Internal Server Error', status: 'error' },
      [],
    ],
  },
  envelopeOk: {
    good: [{ data: null, message: '200 OK', status: 'ok' }],
    bad: [{ data: { description: 'x' }, message: '400 Bad Request', status: 'error' }],
  },
  envelopeError: {
    good: [{ data: { description: 'The specified property cannot be created', extra: 1 }, message: '403 Forbidden', status: 'error' }],
    bad: [
      { data: {}, message: '403 Forbidden', status: 'error' },
      { data: { description: 'x' }, message: '200 OK', status: 'ok' },
      { data: { description: 3 }, message: '400 Bad Request', status: 'error' },
    ],
  },
  errorData: { good: [{ description: '' }], bad: [{}, { description: null }, 'x'] },
  attributeMap: { good: [{}, inventory], bad: [[], 'x', null] },
  bareValue: { good: [1, 'x', null, [], {}, 2n ** 64n], bad: [] },
  pathArray: { good: [[], [`/xyz/${NS}/a`, '/b']], bad: [['relative'], [1], {}] },
  enumerateMap: { good: [{}, { '/a': {}, '/b': { X: 1 } }], bad: [{ a: {} }, { '/a': 1 }, []] },
  propertiesChanged: {
    good: [propertiesChanged],
    bad: [
      { ...propertiesChanged, interface: undefined },
      { ...propertiesChanged, event: 'InterfacesAdded' },
      { ...propertiesChanged, properties: [] },
    ],
  },
  interfacesAdded: {
    good: [interfacesAdded],
    bad: [
      { ...interfacesAdded, interfaces: { i: 1 } },
      { ...interfacesAdded, path: 'x' },
      { event: 'InterfacesAdded', path: '/a' },
    ],
  },
  event: {
    good: [propertiesChanged, interfacesAdded],
    bad: [{ event: 'Other' }, { event: 'PropertiesChanged', path: '/a' }, { ...interfacesAdded, interfaces: [] }, {}],
  },
  filter: { good: [{}, { paths: ['/a'] }, { interfaces: ['i'], paths: [] }], bad: [{ paths: '/a' }, { paths: [1] }, { other: [] }, []] },
  inventorySystem: {
    good: [inventory, { ...inventory, Cached: false, FieldReplaceable: true, Present: true, Extra: 1 }],
    bad: [
      { ...inventory, Present: 2 },
      { ...inventory, Cached: 'true' },
      { ...inventory, Model: 1 },
      { ...inventory, SerialNumber: undefined },
    ],
  },
  timeElapsed: {
    good: [{ Elapsed: 1_700_000_000_000_000 }, { Elapsed: 18446744073709551615n }],
    bad: [{ Elapsed: 1.5 }, { Elapsed: '1' }, {}],
  },
  timeOwner: {
    good: [{ TimeOwner: `xyz.${NS}.Time.Owner.Owners.BMC` }, { TimeOwner: `xyz.${NS}.Time.Owner.Owners.Split` }],
    bad: [{ TimeOwner: 'xyz.openbmc_project.Time.Owner.Owners.BMC' }, { TimeOwner: 'BMC' }, { TimeOwner: `xyz.${NS}.Time.Owner.Owners.` }],
  },
  timeSyncMethod: {
    good: [{ TimeSyncMethod: `xyz.${NS}.Time.Synchronization.Method.NTP` }],
    bad: [{ TimeSyncMethod: `xyz.${NS}.Time.Owner.Owners.NTP` }, {}],
  },
  hostState: {
    good: [
      host,
      {
        ...host,
        CurrentHostState: `xyz.${NS}.State.Host.HostState.Running`,
        RequestedHostTransition: `xyz.${NS}.State.Host.Transition.Reboot`,
      },
    ],
    bad: [
      { ...host, AttemptsLeft: '3' },
      { ...host, CurrentHostState: `xyz.${NS}.State.Host.Transition.On` },
      { ...host, BootProgress: undefined },
      { ...host, OperatingSystemState: 'Inactive' },
    ],
  },
  versionId: { good: ['a1b2c3d4'], bad: ['', 12345678, null] },
  loginBody: {
    good: [{ data: ['root', 'pw'] }],
    bad: [{ data: ['root'] }, { data: ['root', 'pw', 'x'] }, { data: ['root', 1] }, { username: 'root', password: 'pw' }],
  },
};

/** JSON.stringify drops undefined members: use it to make "member missing" cases. */
const clean = (x: unknown): unknown =>
  typeof x === 'object' && x !== null
    ? JSON.parse(JSON.stringify(x, (_k, val: unknown) => (typeof val === 'bigint' ? Number(val) : val)))
    : x;

describe('schemas', () => {
  test('every schema has cases and a file', () => {
    expect(Object.keys(CASES).sort()).toEqual([...SCHEMA_NAMES].sort());
    expect(schemaDir()).toMatch(/schemas$/);
  });

  describe.each(SCHEMA_NAMES)('%s', (name) => {
    test.each(CASES[name].good.map((g, i) => [i, g] as const))('accepts good example %i', (_i, good) => {
      expect(v.check(name, good)).toEqual({ ok: true, errors: [] });
    });
    if (CASES[name].bad.length > 0) {
      test.each(CASES[name].bad.map((b, i) => [i, b] as const))('rejects bad example %i', (_i, bad) => {
        const r = v[name](clean(bad));
        expect(r.ok).toBe(false);
        expect(r.errors.length).toBeGreaterThan(0);
        for (const e of r.errors) expect(e).toMatch(/^\/\S*( member name "[^"]*")?: .+/);
      });
    }
  });

  test('readable errors name the instance path', () => {
    expect(v.inventorySystem({ ...inventory, Cached: 2 }).errors).toEqual(['/Cached: must be one of: 0, 1; or must be boolean']);
    expect(v.envelope({ data: {}, message: '200 OK', status: 'error' }).errors).toEqual([
      "/data: must have required property 'description'",
    ]);
    expect(v.filter({ paths: [], foo: 1 }).errors).toEqual(['/: has unexpected member "foo"']);
  });

  test('the namespace is a parameter, regex-escaped, and compiled once per namespace', () => {
    expect(validators(NS)).toBe(v);
    const other = validators('openbmc_project');
    expect(other.timeOwner({ TimeOwner: 'xyz.openbmc_project.Time.Owner.Owners.BMC' }).ok).toBe(true);
    expect(other.timeOwner({ TimeOwner: `xyz.${NS}.Time.Owner.Owners.BMC` }).ok).toBe(false);
    const dotted = validators('a.b');
    expect(dotted.timeOwner({ TimeOwner: 'xyz.a.b.Time.Owner.Owners.BMC' }).ok).toBe(true);
    expect(dotted.timeOwner({ TimeOwner: 'xyz.aXb.Time.Owner.Owners.BMC' }).ok).toBe(false);
  });

  test('every schema compiles (each is compiled when first used)', () => {
    for (const name of SCHEMA_NAMES) expect(() => validators('compile_all').check(name, null), name).not.toThrow();
    expect(() => v.check('noSuchSchema' as SchemaName, null)).toThrow(RangeError);
  });

  test('every schema file of schemas/ is a valid 2020-12 schema (runs compile them without this check)', () => {
    const ajv = new Ajv2020({ strict: false });
    const files = readdirSync(schemaDir()).filter((f) => f.endsWith('.schema.json'));
    expect(files).toEqual(expect.arrayContaining([...Object.values(SCHEMA_FILES), 'target-profile.schema.json', 'targets.schema.json']));
    for (const file of files) {
      const schema = JSON.parse(readFileSync(join(schemaDir(), file), 'utf8')) as object;
      expect(ajv.validateSchema(schema), `${file}: ${ajv.errorsText()}`).toBe(true);
    }
    // The check can fail: a keyword of the wrong type is refused.
    expect(ajv.validateSchema({ type: 12 })).toBe(false);
    expect(ajv.validateSchema({ type: 'object', required: 'AssetTag' })).toBe(false);
  });

  test('bigint values validate as integers', () => {
    expect(v.timeElapsed({ Elapsed: 2n ** 64n - 1n }).ok).toBe(true);
    expect(v.timeElapsed({ Elapsed: 10n ** 400n }).ok).toBe(true);
    expect(v.inventorySystem({ ...inventory, Present: 1n }).ok).toBe(true);
  });
});
