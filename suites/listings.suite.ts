/** Listings: children (trailing slash), list, enumerate, and discovery from / (rule 1). */
import { jsonEqual } from '../client/json.js';
import { check, type CheckContext } from './support/check.js';
import { asObject, ensure, expectOk, setDifference, show } from './support/assert.js';
import { expectSchema } from './support/schema.js';
import { cached, children, enumerate, getObject, list, walk } from './support/tree.js';
import { firstWritePlan, putAttr, restoreAfter } from './support/writable.js';

const SUBTREES = ['', '/network', '/inventory', '/logging', '/state', '/time'];

function subtree(t: CheckContext, rel: string): string {
  return `${t.root}${rel}`;
}

/**
 * Real trees have transient objects: a set difference is read again once before it counts.
 * Returns the differences of the second reading.
 */
async function stableDifference(read: () => Promise<[string[], string[]]>): Promise<[string[], string[]]> {
  let [a, b] = await read();
  if (setDifference(a, b).length === 0 && setDifference(b, a).length === 0) return [[], []];
  [a, b] = await read();
  return [setDifference(a, b), setDifference(b, a)];
}

check('EP-5', 'GET {path}/ answers with the absolute paths of the direct children', async (t) => {
  for (const rel of SUBTREES) {
    const parent = subtree(t, rel);
    const kids = await children(t.client, parent);
    expectSchema(t, 'pathArray', kids, `GET ${parent}/ data`);
    const bad = kids.filter((k) => !k.startsWith(`${parent}/`) || k.slice(parent.length + 1).includes('/') || k.length === parent.length + 1);
    ensure(bad.length === 0, `GET ${parent}/ names paths that are not its direct children: ${show(bad.slice(0, 5))}`);
  }
});

check(['EP-6', 'RULE-1'], 'GET {path}/list answers with every descendant, as the repeated listing finds them', async (t) => {
  for (const rel of SUBTREES) {
    const path = subtree(t, rel);
    const [onlyWalk, onlyList] = await stableDifference(async () => {
      const w = await walk(t.client, path);
      return [[...w.nodes], await list(t.client, path)];
    });
    ensure(onlyWalk.length === 0, `GET ${path}/list lacks descendants found by listing children: ${show(onlyWalk.slice(0, 5))}`);
    ensure(onlyList.length === 0, `GET ${path}/list names paths that listing children does not reach: ${show(onlyList.slice(0, 5))}`);
  }
});

check('EP-7', 'GET {path}/enumerate maps each descendant to its attributes, as GET of each answers', async (t) => {
  for (const rel of SUBTREES.slice(1)) {
    const path = subtree(t, rel);
    const en = await enumerate(t.client, path);
    expectSchema(t, 'enumerateMap', en, `GET ${path}/enumerate data`);
    const [notListed] = await stableDifference(async () => [Object.keys(await enumerate(t.client, path)), await list(t.client, path)]);
    ensure(notListed.length === 0, `GET ${path}/enumerate names paths that ${path}/list does not: ${show(notListed.slice(0, 5))}`);
    // Nodes without attributes may be left out of enumerate; nodes with attributes may not.
    const listed = await list(t.client, path);
    for (const p of setDifference(listed, Object.keys(en)).slice(0, 20)) {
      const attrs = await getObject(t.client, p);
      ensure(Object.keys(attrs).length === 0, `GET ${path}/enumerate lacks ${p}, which has attributes`);
    }
    let compared = 0;
    for (const [p, attrs] of Object.entries(en).slice(0, 25)) {
      const direct = await getObject(t.client, p);
      for (const [name, value] of Object.entries(attrs)) {
        if (jsonEqual(direct[name], value)) continue;
        // A counter may have moved between the two reads: read the enumeration once more.
        const again = asObject((await enumerate(t.client, path))[p], `enumerate ${p}`)[name];
        const direct2 = (await getObject(t.client, p))[name];
        ensure(jsonEqual(again, direct2) || jsonEqual(again, direct[name]) || !jsonEqual(direct[name], direct2),
          `GET ${path}/enumerate says ${p} ${name} = ${show(value)}, GET ${p} says ${show(direct[name])}`);
      }
      ensure(setDifference(Object.keys(direct), Object.keys(attrs)).length === 0,
        `GET ${path}/enumerate lacks attributes of ${p}: ${show(setDifference(Object.keys(direct), Object.keys(attrs)))}`);
      compared += 1;
    }
    ensure(compared > 0 || Object.keys(en).length === 0, `nothing to compare under ${path}`);
  }
});

check('RULE-1', 'without a trailing slash GET gives attributes, with one it lists children', async (t) => {
  for (const rel of ['/inventory/system', '/state/host0', '/network']) {
    const path = subtree(t, rel);
    const attrs = expectOk(await t.client.get(path), `GET ${path}`);
    ensure(attrs !== null && typeof attrs === 'object' && !Array.isArray(attrs), `GET ${path} (no slash) is not an attribute map: ${show(attrs)}`);
    const kids = expectOk(await t.client.get(`${path}/`), `GET ${path}/`);
    ensure(Array.isArray(kids), `GET ${path}/ (trailing slash) is not a listing: ${show(kids)}`);
  }
});

check('RULE-1', 'GET / lists the top of the hierarchy and repeated listing from it reaches every object', async (t) => {
  const top = expectOk(await t.client.get('/'), 'GET /');
  ensure(Array.isArray(top) && top.length > 0, `GET / is not a non-empty listing: ${show(top)}`);
  const all = await cached('list:root', () => list(t.client, t.root));
  let first = true;
  const [unreached] = await stableDifference(async () => {
    // The first reading may come from the run's cache; a second reading is always fresh.
    const w = first ? await cached('walk:/', () => walk(t.client, '/')) : await walk(t.client, '/');
    first = false;
    return [await list(t.client, t.root), [...w.nodes]];
  });
  ensure(unreached.length === 0, `listing from / never reaches ${show(unreached.slice(0, 5))} (of ${all.length} objects)`);
});

check('EP-7', 'GET {path}/enumerate shows a write at once', async (t) => {
  const plan = await firstWritePlan(t);
  restoreAfter(t, plan);
  const { path, name } = plan.attr;
  const parent = path.slice(0, path.lastIndexOf('/'));
  const before = asObject((await enumerate(t.client, parent))[path], `GET ${parent}/enumerate entry ${path}`);
  ensure(jsonEqual(before[name], plan.original), `GET ${parent}/enumerate says ${path} ${name} = ${show(before[name])} before the write, GET says ${show(plan.original)}`);
  await putAttr(t, path, name, plan.next);
  const after = asObject((await enumerate(t.client, parent))[path], `GET ${parent}/enumerate entry ${path}`);
  ensure(jsonEqual(after[name], plan.next), `after PUT ${path}/attr/${name} = ${show(plan.next)}, GET ${parent}/enumerate still says ${show(after[name])}`);
}, { profile: 'safe' });
