/** The fuzzer's arbitraries: paths, bodies, login cases and request families, without a target. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MODEL, NS, ROOT, WHO } from './fixture.js';
import { INERT_CHARS, mutationArb, nearMiss, readPathArb, renderPath, sentinelPathArb, type PathCase } from '../../suites/fuzz/paths.js';
import { bodyArb, isWellFormed, renderBody } from '../../suites/fuzz/bodies.js';
import {
  boundaryLoginCases,
  derivePassword,
  isNeverValid,
  loginCaseArb,
  renderLogin,
  PASSWORD_OPS,
  USER_BOUNDARIES,
} from '../../suites/fuzz/login.js';
import { anonymousRequestArb, anyRequestArb, plausibleArgs, type FuzzRequest } from '../../suites/fuzz/requests.js';
import { clientWouldRefuse, needsSideClient } from '../../suites/fuzz/send.js';
import { stableCaseArb } from '../../suites/fuzz/properties/stability.js';
import { parseJson } from '../../client/json.js';

const WRITABLE = [{ path: `${ROOT}/inventory/system`, name: 'AssetTag' }];

/** The path a lenient server could make of it: decoded, slashes collapsed, dot segments resolved, lower case. */
function lenient(path: string): string {
  let p = path.split('?')[0]!.split('#')[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep it raw */
  }
  const out: string[] = [];
  for (const seg of p.replace(/\\|\uff0f/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`.toLowerCase();
}

/** No real object (other than the sentinel's ancestors) is reachable through a sentinel path. */
function reachesRealObject(path: string): string | undefined {
  const p = lenient(path);
  return MODEL.nodes.filter((n) => n !== ROOT).find((n) => p === n.toLowerCase() || p.startsWith(`${n.toLowerCase()}/`));
}

describe('the model', () => {
  test('is sorted, starts at the namespace root and knows the shown actions', () => {
    expect(MODEL.nodes[0]).toBe(ROOT);
    expect(MODEL.nodes).toEqual([...MODEL.nodes].sort());
    expect(MODEL.parents).toContain(`${ROOT}/logging/entry`);
    expect(MODEL.parents).not.toContain(`${ROOT}/logging/entry/1`);
    expect(MODEL.attrPairs).toContainEqual([`${ROOT}/time/bmc`, 'Elapsed']);
    expect(MODEL.actions).toContainEqual([`${ROOT}/software`, 'Reset', 0]);
    // The target's own instances are never aimed at with Delete, even with wrong arguments.
    expect(MODEL.actions.filter(([, method]) => method === 'Delete')).toEqual([]);
    expect(MODEL.kinds.get(`${ROOT}/inventory/system\u0000Present`)).toBe('bool01');
  });
});

describe('paths', () => {
  test('render the base, the suffix and each mutation as documented', () => {
    const base: PathCase = { base: `${ROOT}/inventory/system`, suffix: { kind: 'attr', name: 'AssetTag' }, mutations: [] };
    expect(renderPath(base)).toBe(`${ROOT}/inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, suffix: { kind: 'slash' } })).toBe(`${ROOT}/inventory/system/`);
    expect(renderPath({ base: '/', suffix: { kind: 'slash' }, mutations: [] })).toBe('/');
    expect(renderPath({ base: '/', suffix: { kind: 'list' }, mutations: [] })).toBe('/list');
    expect(renderPath({ ...base, mutations: [{ op: 'empty', at: 1 }] })).toBe(`/xyz//${NS}/inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'case', at: 0, mode: 0 }] })).toBe(`/XYZ/${NS}/inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'dot', at: 2, two: true }] })).toBe(`/xyz/${NS}/../inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'back', at: 0 }] })).toBe(`/xyz/../xyz/${NS}/inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'pct', at: 0, pos: 0, lower: true }] })).toBe(
      `/%78yz/${NS}/inventory/system/attr/AssetTag`,
    );
    expect(renderPath({ ...base, mutations: [{ op: 'slash2f', at: 2 }] })).toBe(`/xyz/${NS}/inventory%2Fsystem/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'char', at: 0, pos: 1, ch: 'é' }] })).toBe(`/xéyz/${NS}/inventory/system/attr/AssetTag`);
    expect(renderPath({ ...base, mutations: [{ op: 'reserved', at: 0, word: 'attr/' }] })).toBe(
      `/attr//xyz/${NS}/inventory/system/attr/AssetTag`,
    );
    expect(renderPath({ ...base, mutations: [{ op: 'query', text: 'x=1' }] })).toBe(`${ROOT}/inventory/system/attr/AssetTag?x=1`);
    expect(renderPath({ ...base, mutations: [{ op: 'long', at: 0, len: 3, ch: 'a' }] })).toBe(
      `/aaa/xyz/${NS}/inventory/system/attr/AssetTag`,
    );
  });

  test('near misses differ from the real name', () => {
    for (let op = 0; op < 9; op++) expect(nearMiss('AssetTag', op, 'x')).not.toBe('AssetTag');
  });

  test('inert mutations never make dot segments, encoded dots or slashes', () => {
    fc.assert(
      fc.property(fc.array(mutationArb(true), { maxLength: 5 }), (mutations) => {
        const p = renderPath({ base: `${MODEL.sentinel}/logging/entry/1`, suffix: { kind: 'none' }, mutations });
        const segments = p.split('?')[0]!.split('/');
        expect(segments).not.toContain('.');
        expect(segments).not.toContain('..');
        expect(p).not.toMatch(/%2e|%2f|%5c|\\|%c0|\uff0f/i);
        expect(reachesRealObject(p)).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
    expect(INERT_CHARS.some((c) => c.includes('.'))).toBe(false);
  });

  test('sentinel paths never reach a real object; read paths always start with a slash', () => {
    fc.assert(
      fc.property(sentinelPathArb(MODEL), (c) => {
        expect(reachesRealObject(renderPath(c))).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(readPathArb(MODEL), (c) => {
        expect(renderPath(c).startsWith('/')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bodies', () => {
  test('well-formed bodies are {"data": value} and parse back to it', () => {
    fc.assert(
      fc.property(bodyArb(), (b) => {
        const body = renderBody(b);
        if (!isWellFormed(b)) return;
        const parsed = parseJson(body as string) as { data: unknown };
        expect(Object.keys(parsed)).toEqual(['data']);
      }),
      { numRuns: 300 },
    );
  });
});

describe('login cases', () => {
  test('never carry the real user together with the real password', () => {
    fc.assert(
      fc.property(loginCaseArb(WHO), (c) => {
        expect(isNeverValid(c, WHO)).toBe(true);
        const body = renderLogin(c, WHO).body.toString();
        const both = body.includes(`"${WHO.user}"`) && body.includes(`"${WHO.password}"`);
        expect(both).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  test('the boundary cases send the user cut or folded at each boundary with the right password, in every field form', () => {
    const cases = boundaryLoginCases(WHO);
    const bodies = cases.map((c) => renderLogin(c, WHO).body.toString());
    for (const c of cases) expect(isNeverValid(c, WHO)).toBe(true);
    expect(bodies).toContain(JSON.stringify({ data: ['root\u0000', WHO.password] }));
    expect(bodies).toContain(JSON.stringify({ username: 'root\u0000root', password: WHO.password }));
    expect(bodies).toContain(JSON.stringify({ data: { username: ' root', password: WHO.password } }));
    expect(bodies).toContain(JSON.stringify({ data: ['ROOT', WHO.password] }));
    expect(bodies).toContain(JSON.stringify({ data: ['%72oot', WHO.password] }));
    expect(bodies).toContain(JSON.stringify({ data: ['root', `${WHO.password}\u0000`] }));
    expect(cases.length).toBe(USER_BOUNDARIES.length * 3 + 1);
    // Only the last names the user (the lockout guard counts it).
    expect(cases.map((c) => renderLogin(c, WHO).namesUser).filter(Boolean).length).toBe(1);
  });

  test('near-miss passwords differ from the password', () => {
    for (const op of PASSWORD_OPS) expect(derivePassword('Secret0', op, 'x')).not.toBe('Secret0');
    // A password without a letter first cannot have its first letter swapped: such a case is
    // dropped by the generator whenever it would go with the real user (isNeverValid).
    expect(derivePassword('0penBmc', 'swap-first', 'x')).toBe('0penBmc');
  });
});

describe('request families', () => {
  const options = (profile: 'read-only' | 'safe' | 'destructive') => ({ model: MODEL, profile, who: WHO, writable: WRITABLE });

  test('read-only: nothing but non-changing methods with the session, and junk logins', () => {
    fc.assert(
      fc.property(anyRequestArb(options('read-only')), (r: FuzzRequest) => {
        if (r.family === 'login') {
          expect(r.credentials).toBe(false);
          expect(r.method).toBe('POST');
          return;
        }
        expect(['PUT', 'POST', 'DELETE', 'PATCH']).not.toContain(r.method);
      }),
      { numRuns: 1000 },
    );
  });

  test('safe: a changing method with the session lands on the sentinel, a writable attribute or a made-up action', () => {
    fc.assert(
      fc.property(anyRequestArb(options('safe')), (r: FuzzRequest) => {
        if (!r.credentials || !['PUT', 'POST', 'DELETE', 'PATCH'].includes(r.method)) return;
        const ok =
          (r.family === 'sentinel' && reachesRealObject(r.path) === undefined) ||
          r.path.startsWith(`${ROOT}/inventory/system/attr/`) ||
          /\/action\/(BmcConformanceFuzz[A-Za-z0-9_]*|NoSuchMethod|Create|New)$/.test(r.path);
        expect(ok, `${r.family} ${r.method} ${r.path}`).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  test('destructive: real actions only with implausible arguments', () => {
    expect(plausibleArgs([], 0)).toBe(true);
    expect(plausibleArgs(['a', 'b'], 2)).toBe(true);
    expect(plausibleArgs([1], 0)).toBe(false);
    fc.assert(
      fc.property(anyRequestArb(options('destructive')), (r: FuzzRequest) => {
        if (r.family !== 'wrong-arity') return;
        const method = /\/action\/([^/]+)$/.exec(r.path)![1]!;
        const arity = method === 'DownloadViaTFTP' ? 2 : 0;
        let data: unknown;
        try {
          data = (parseJson(String(r.body)) as { data?: unknown }).data;
        } catch {
          return; // malformed: nothing can be called
        }
        expect(plausibleArgs(data, arity), String(r.body)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  test('anonymous requests never carry the session and never aim at login or logout', () => {
    fc.assert(
      fc.property(anonymousRequestArb(options('destructive')), (r: FuzzRequest) => {
        expect(r.credentials).toBe(false);
        expect(r.path).not.toMatch(/^\/+log(in|out)\b/i);
      }),
      { numRuns: 500 },
    );
  });

  test('requests undici cannot form are held back; bodies on GET go to the side client', () => {
    expect(clientWouldRefuse({ method: 'G ET' })).toBeDefined();
    expect(clientWouldRefuse({ method: 'GET', contentType: 'application/json\r\nX: 1' })).toBeDefined();
    expect(clientWouldRefuse({ method: 'FOO', contentType: 'application/json; charset=utf-8' })).toBeUndefined();
    expect(needsSideClient({ method: 'GET', body: 'x', path: '/' })).toBe(true);
    expect(needsSideClient({ method: 'PUT', body: 'x', path: '/' })).toBe(false);
    expect(needsSideClient({ method: 'GET', path: '/' })).toBe(false);
    expect(needsSideClient({ method: 'FOO', path: '/' })).toBe(true);
    expect(needsSideClient({ method: 'GET', path: `/${'a'.repeat(9000)}` })).toBe(true);
  });
});

describe('a target whose enumerate costs seconds', () => {
  const kinds = (arb: fc.Arbitrary<{ kind: string }>) => {
    const counts = new Map<string, number>();
    for (const c of fc.sample(arb, { numRuns: 2000, seed: 11 })) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
    return counts;
  };

  test('the stability cases enumerate about one time in fifty, not two in seven, and still enumerate', () => {
    const usual = kinds(stableCaseArb(MODEL));
    const costly = kinds(stableCaseArb(MODEL, true, true));
    expect(usual.get('enumerate')! / 2000).toBeGreaterThan(0.2);
    expect(costly.get('enumerate')! / 2000).toBeLessThan(0.05);
    expect(costly.get('enumerate')).toBeGreaterThan(0);
    expect(costly.get('attr')).toBeGreaterThan(costly.get('list')!);
  });

  test('the plain reads leave enumerate out; the mutated reads still enumerate odd paths', () => {
    const paths = (enumerateCostly: boolean) =>
      fc
        .sample(anyRequestArb({ model: MODEL, profile: 'destructive', who: WHO, writable: WRITABLE, enumerateCostly }), {
          numRuns: 3000,
          seed: 5,
        })
        .filter((r) => /\/enumerate$/.test(r.path));
    const plain = (rs: FuzzRequest[]) => rs.filter((r) => r.family === 'plain-read');
    expect(plain(paths(false)).length).toBeGreaterThan(0);
    expect(plain(paths(true))).toEqual([]);
    expect(paths(true).filter((r) => r.family === 'read').length).toBeGreaterThan(0);
  });
});
