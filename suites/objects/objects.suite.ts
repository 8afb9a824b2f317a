/** Objects and attributes: the objects the spec shows, GET of an object and of one attribute. */
import { BmcClientError } from '../../client/errors.js';
import { compareValues, describeEncodings, isMap, sameValue } from '../../client/values.js';
import { check, type CheckContext } from '../harness/check.js';
import { asObject, ensure, envelopeOf, expectOk, notJudged, setDifference, show } from '../harness/assert.js';
import { ABSENT, agree, describeViews, readMapAndAttr, stableOddView, UNAVAILABLE, type Views } from '../harness/views.js';
import { readPlan } from '../harness/read-plan.js';
import { READ_PLAN_OBSERVATION } from '../../client/results.js';
import { expectSchema } from '../harness/schema.js';
import { attributeMap, cached, children, enumerate, getAttr, getObject, interfaceKeys, list, walk } from '../harness/tree.js';

const TOP_LEVEL = ['dump', 'software', 'control', 'network', 'logging', 'sensors', 'inventory', 'user', 'time', 'led', 'state'];
const FLAGS = ['Cached', 'FieldReplaceable', 'Present'];
const NAMED = ['network/config', 'network/config/dhcp', 'network/eth0', 'network/host0/intf', 'network/host0/intf/addr', 'software'];

/** Attributes whose value changes between two reads (counters such as Elapsed) cannot be compared. */
async function stableAttributes(t: CheckContext, path: string): Promise<Record<string, unknown>> {
  const first = await attributeMap(t.client, path);
  const second = await attributeMap(t.client, path);
  const stable: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(second)) if (sameValue(first[k], v)) stable[k] = v;
  return stable;
}

/** An attribute the spec shows for each object: it must be a key of the object's own map. */
const SHOWN_ATTRIBUTE: Record<string, string> = {
  'inventory/system': 'Model',
  'state/host0': 'CurrentHostState',
  'time/owner': 'TimeOwner',
};

check('EP-3', 'GET {path} answers with a map of attribute name to value', async (t) => {
  for (const [rel, shown] of Object.entries(SHOWN_ATTRIBUTE)) {
    const data = asObject(expectOk(await t.client.get(`${t.root}/${rel}`), `GET ${t.root}/${rel}`), `GET ${t.root}/${rel} data`);
    expectSchema(t, 'attributeMap', data, `GET ${t.root}/${rel} data`);
    ensure(shown in data, `GET ${t.root}/${rel} has no attribute ${shown} at the top of its map: keys ${show(Object.keys(data))}`);
    // Attribute names are D-Bus property names; a key like xyz.{ns}.X is an interface, not an attribute.
    const interfaces = interfaceKeys(data);
    ensure(interfaces.length === 0, `GET ${t.root}/${rel} maps interface names, not attribute names: ${show(interfaces)}`);
  }
});

/**
 * How likely a serializer is to drop or change an object's values: empty ones, integers beyond a
 * double, fractions and nested values first, so that a bounded sample meets them.
 */
function riskiness(attrs: Record<string, unknown>): number {
  let score = 0;
  for (const v of Object.values(attrs)) {
    if (v === '' || v === null || (Array.isArray(v) && v.length === 0)) score += 4;
    else if (typeof v === 'bigint') score += 4;
    else if (typeof v === 'number' && !Number.isInteger(v)) score += 2;
    else if (typeof v === 'object') score += 1;
  }
  return score;
}

/** At most this many objects are read by GET against the namespace's enumerate. */
const MAP_SAMPLE = 40;

check('EP-3', 'GET {path} keeps every attribute and value that attr/{name} and enumerate agree on', async (t) => {
  const entries = Object.entries(await cached('enumerate:root', () => enumerate(t.client, t.root))).filter(
    ([, attrs]) => Object.keys(attrs).length > 0,
  );
  if (entries.length === 0) notJudged(`GET ${t.root}/enumerate maps no object with attributes to compare with GET`);
  entries.sort(([, a], [, b]) => riskiness(b) - riskiness(a));
  const suspects: Array<[string, string]> = [];
  let compared = 0;
  for (const [path, attrs] of entries.slice(0, MAP_SAMPLE)) {
    const res = await t.client.get(path);
    const map = res.status === 200 ? envelopeOf(res)?.data : undefined;
    if (!isMap(map)) continue; // judged by the EP-3 check above
    compared += 1;
    for (const [name, value] of Object.entries(attrs))
      if (!Object.hasOwn(map, name) || compareValues(map[name], value) === 'different') suspects.push([path, name]);
  }
  if (compared === 0)
    notJudged(`GET gave no attribute map of the ${Math.min(entries.length, MAP_SAMPLE)} objects enumerate names (see EP-3 above)`);
  // A disagreement is the map's failure only when attr/ and enumerate agree against it: a map that
  // attr/ agrees with, read together now, cannot be (the enumerate read earlier, or a value moved).
  const wrong: string[] = [];
  for (const [path, name] of suspects.slice(0, 10)) {
    const now = await readMapAndAttr(t, path, name);
    if (now.map !== ABSENT && agree(now.map, now.attr)) continue;
    const { odd, views } = await stableOddView(t, path, name);
    if (odd === 'map') wrong.push(describeViews(path, name, views));
  }
  ensure(
    wrong.length === 0,
    `GET {path} drops or changes what attr/{name} and enumerate agree on (${wrong.length} attribute${wrong.length === 1 ? '' : 's'}, ${compared} objects read): ${wrong.slice(0, 3).join('; ')}`,
  );
});

/** Integers a double cannot hold: the boundary where one route may lose precision and another not. */
const BEYOND_DOUBLE = 2n ** 53n;

/**
 * Objects with an integer attribute beyond 2^53, found in the namespace's enumerate (the run's
 * cached one; a hint only: the values compared are those of GET and attr/). None when enumerate
 * does not answer a map.
 */
function objectsWithBoundaryIntegers(enumeration: Record<string, Record<string, unknown>> | undefined, max = 4): string[] {
  if (enumeration === undefined) return [];
  const big = (v: unknown) => typeof v === 'bigint' && (v > BEYOND_DOUBLE || v < -BEYOND_DOUBLE);
  return Object.entries(enumeration)
    .filter(([, attrs]) => attrs !== null && typeof attrs === 'object' && Object.values(attrs).some(big))
    .map(([path]) => path)
    .slice(0, max);
}

/**
 * EP-4 reads every attribute of the objects the spec shows, those with integers beyond a double,
 * and the read plan (suites/harness/read-plan.ts): objects of every kind the tree has, chosen by
 * the tree alone. Each attribute is read once by attr/ and compared with the object's map; a
 * disagreement is read again by all three routes, and the parent's enumerate says which is wrong.
 */
check('EP-4', "GET {path}/attr/{name} answers with the bare value equal to the object's map value", async (t) => {
  const shown = [`${t.root}/inventory/system`, `${t.root}/state/host0`, `${t.root}/time/owner`, `${t.root}/time/sync_method`];
  const enumeration = await optional(() => cached('enumerate:root', () => enumerate(t.client, t.root)));
  const plan = readPlan(enumeration ?? {});
  t.observe(READ_PLAN_OBSERVATION, {
    objects: plan.objects.length,
    objectsInTree: plan.objectsInTree,
    // Each attribute by the object's map, attr/ and the parent's enumerate.
    routes: 3,
    strata: `${plan.strataCovered} of ${plan.strata}`,
    attributes: plan.attributes,
    digest: plan.digest,
  });
  const planned = plan.objects.map((o) => o.path).filter((p) => !shown.includes(p));
  const boundary = objectsWithBoundaryIntegers(enumeration).filter((p) => !shown.includes(p) && !planned.includes(p));
  let compared = 0;
  const encodings: string[] = [];
  const mapWrong: string[] = [];
  const attrWrong: string[] = [];
  for (const path of [...shown, ...boundary, ...planned]) {
    // The shown objects must answer (EP-3's prerequisite); a planned one that does not is EP-3's concern.
    const attrs = shown.includes(path) ? await stableAttributes(t, path) : await optional(() => stableAttributes(t, path));
    for (const [name, value] of Object.entries(attrs ?? {})) {
      const res = await t.client.get(`${path}/attr/${name}`);
      const bare = res.status === 200 ? envelopeOf(res)?.data : undefined;
      const match = res.status === 200 ? compareValues(bare, value) : 'different';
      if (match === 'different') {
        // The map may be the one that is wrong: enumerate says which of the two is.
        const { odd, views } = await stableOddView(t, path, name);
        if (odd === 'map') mapWrong.push(describeViews(path, name, views));
        else if (odd === 'attr' || !sameAttr(views)) {
          const got = res.status === 200 ? show(bare) : `${res.status} ${clipText(envelopeOf(res)?.data)}`;
          attrWrong.push(
            odd === 'attr'
              ? `GET ${path}/attr/${name} answers ${got} where GET ${path} and its parent's enumerate say ${show(value)}`
              : `GET ${path}/attr/${name} answers ${got}, the object's map ${show(value)} (read again: ${describeViews(path, name, views)})`,
          );
        }
        continue;
      }
      if (match === 'encoding') encodings.push(`${name}: attr/ ${describeEncodings(bare, value).replace(' and ', ', the object map ')}`);
      compared += 1;
    }
  }
  if (mapWrong.length > 0) t.observe('attributes the object map gets wrong (see EP-3)', mapWrong.slice(0, 5));
  ensure(
    attrWrong.length === 0,
    `${attrWrong.length} attribute${attrWrong.length === 1 ? '' : 's'} of ${compared + attrWrong.length} read by attr/ disagree with the object's map: ${attrWrong.slice(0, 3).join('; ')}`,
  );
  if (compared === 0 && mapWrong.length > 0) notJudged(`not judged: the object map is the one that differs (see EP-3): ${mapWrong[0]}`);
  ensure(compared > 0, 'no attribute could be compared');
  // One D-Bus value in two encodings is the same value: a deviation from "equal", not a failure.
  if (encodings.length > 0)
    t.warn(`the same values are rendered differently by attr/{name} and the object map: ${[...new Set(encodings)].slice(0, 4).join('; ')}`);
});

/** attr/ and the map agree on a second reading (the first disagreement was a value moving). */
function sameAttr(views: Views): boolean {
  return (
    views.attr !== ABSENT && views.attr !== UNAVAILABLE && views.map !== ABSENT && compareValues(views.attr, views.map) !== 'different'
  );
}

function clipText(v: unknown): string {
  const text = isMap(v) && typeof v.description === 'string' ? v.description : show(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Something the check can do without, when another requirement's deviation denies it; a network
 * fault still stops the test (NOT_TESTED naming it), never reads as "absent".
 */
async function optional<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof BmcClientError) throw err;
    return undefined;
  }
}

check('OBJ-1', 'every object reached from / is addressed by an absolute path beginning with /xyz/{ns}/', async (t) => {
  // Only the namespace root and its ancestors may stand outside it.
  const outsideRoot = (p: string) => !p.startsWith(`${t.root}/`) && !`${t.root}/`.startsWith(`${p}/`) && p !== t.root;
  const listed = await optional(() => cached('list:root', () => list(t.client, t.root)));
  // Discovery starts at / (rule 1); where / does not list (RULE-1's failure), at /xyz/{ns}/.
  const fromSlash = await optional(() => cached('walk:/', () => walk(t.client, '/')));
  const reached = fromSlash ?? (await optional(() => walk(t.client, t.root)));
  if (!listed && !reached) notJudged(`neither GET ${t.root}/list nor listing from / or ${t.root}/ answers (see EP-6, RULE-1, EP-5)`);
  const outside = [...(listed ?? []), ...(reached?.nodes ?? [])].filter(outsideRoot);
  ensure(outside.length === 0, `objects outside ${t.root}/ are reached: ${show([...new Set(outside)].slice(0, 5))}`);
  if (!fromSlash) t.observe('discovery for OBJ-1', `GET / does not list (see RULE-1): checked what ${t.root}/ reaches`, 'VER-1');
});

check('OBJ-2', 'the 11 top-level children of /xyz/{ns}/ are present', async (t) => {
  const top = await optional(() => children(t.client, t.root));
  const expected = TOP_LEVEL.map((c) => `${t.root}/${c}`);
  // A child the listing does not show (EP-5's concern) is present if it answers as a node itself.
  const missing: string[] = [];
  for (const child of setDifference(expected, top ?? [])) {
    const res = await t.client.get(`${child}/`);
    if (res.status !== 200) missing.push(`${child} (GET ${child}/ answered ${res.status})`);
  }
  ensure(missing.length === 0, `missing top-level children: ${missing.join(', ')}`);
  if (top) t.observe('extra top-level children', setDifference(top, expected), 'VER-1');
});

check('OBJ-3', 'inventory/system has the ten attributes with the shown types', async (t) => {
  const sys = await attributeMap(t.client, `${t.root}/inventory/system`);
  expectSchema(t, 'inventorySystem', sys, 'inventory/system');
  const booleans = FLAGS.filter((f) => typeof sys[f] === 'boolean');
  // The spec shows these D-Bus booleans as 0 or 1; JSON true/false carries the same fact.
  if (booleans.length > 0) t.warn(`${booleans.join(', ')} answered as JSON booleans; the spec shows integers 0 or 1`);
  t.observe('flag encoding', Object.fromEntries(FLAGS.map((f) => [f, typeof sys[f]])), 'VER-1');
});

check('OBJ-4', 'the time objects carry Elapsed integers and their enumerated owner and sync method', async (t) => {
  for (const which of ['bmc', 'host']) {
    expectSchema(t, 'timeElapsed', await attributeMap(t.client, `${t.root}/time/${which}`), `time/${which}`);
  }
  expectSchema(t, 'timeOwner', await attributeMap(t.client, `${t.root}/time/owner`), 'time/owner');
  expectSchema(t, 'timeSyncMethod', await attributeMap(t.client, `${t.root}/time/sync_method`), 'time/sync_method');
});

check('OBJ-5', 'state/host0 carries AttemptsLeft and the four enumerated state attributes', async (t) => {
  expectSchema(t, 'hostState', await attributeMap(t.client, `${t.root}/state/host0`), 'state/host0');
});

check('OBJ-6', 'the objects the spec names exist', async (t) => {
  const missing: string[] = [];
  for (const rel of NAMED) {
    const res = await t.client.get(`${t.root}/${rel}`);
    if (res.status !== 200) missing.push(`${rel} (${res.status})`);
    else expectSchema(t, 'attributeMap', expectOk(res, `GET ${t.root}/${rel}`), rel);
  }
  ensure(missing.length === 0, `not found: ${missing.join(', ')}`);
  const eth0 = await children(t.client, `${t.root}/network/eth0`);
  t.observe('network/eth0 children', eth0);
});

check('OBJ-7', 'event records are logging/entry/<integer id>', async (t) => {
  const parent = `${t.root}/logging/entry`;
  const res = await t.client.get(`${parent}/`);
  if (res.status === 404) t.notTested('the target has no logging/entry node (no event records)');
  const entries = await children(t.client, parent);
  if (entries.length === 0) t.notTested('the target has no event records');
  const notChildren = entries.filter((p) => !p.startsWith(`${parent}/`));
  if (notChildren.length > 0) notJudged(`GET ${parent}/ names ${show(notChildren.slice(0, 2))}, not paths under it (see EP-5)`);
  const bad = entries.filter((p) => !/^\d+$/.test(p.slice(parent.length + 1)));
  ensure(bad.length === 0, `entries without an integer id: ${show(bad.slice(0, 5))}`);
  await getObject(t.client, entries[0]!);
});

check('OBJ-8', 'attribute names are case-sensitive', async (t) => {
  const sys = `${t.root}/inventory/system`;
  const model = await getAttr(t.client, sys, 'Model');
  for (const variant of ['model', 'MODEL', 'mODEL']) {
    const res = await t.client.get(`${sys}/attr/${variant}`);
    const addressed = res.status === 200 && sameValue((res.json as { data?: unknown })?.data, model);
    ensure(!addressed, `GET ${sys}/attr/${variant} answered the value of Model`);
  }
});

check('VER-1', 'record server identification and version markers', async (t) => {
  const res = await t.client.get(`${t.root}/`);
  const h = res.headers;
  t.observe('server headers', {
    server: h['server'] ?? null,
    'x-powered-by': h['x-powered-by'] ?? null,
    'api-version': h['api-version'] ?? null,
  });
  t.observe('listing order', isSorted(res.json) ? 'sorted' : 'unsorted');
});

function isSorted(json: unknown): boolean {
  const data = (json as { data?: unknown })?.data;
  if (!Array.isArray(data)) return false;
  return data.every((v, i) => i === 0 || String(data[i - 1]) <= String(v));
}
