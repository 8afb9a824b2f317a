import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, I, login, rawHttps, ROOT, startWithSession, type Reply, type Session } from './helpers.js';

let s: Session;
let logged: string[];

beforeAll(async () => {
  logged = [];
  s = await startWithSession({ log: (m) => logged.push(m) });
});
afterAll(() => s.sim.close());

function expectSane(r: Reply | { status: number; body: any }, what: string): void {
  expect(r.status, what).toBeGreaterThanOrEqual(200);
  expect(r.status, what).toBeLessThan(500);
  expect(r.body, what).toBeDefined();
  expect(r.body.message, what).toBe(`${r.status} ${r.body.message.slice(4)}`);
  expect(r.body.status, what).toBe(r.status < 400 ? 'ok' : 'error');
}

const jsonRoutes: [string, string][] = [
  ['POST', '/login'],
  ['POST', '/logout'],
  ['PUT', `${ROOT}/inventory/system/attr/AssetTag`],
  ['PUT', `${ROOT}/control/power_cap/attr/PowerCap`],
  ['PUT', `${ROOT}/led/groups/enclosure_identify/attr/Asserted`],
  ['PUT', `${ROOT}/inventory/system`],
  ['PUT', `${ROOT}/sensors/counters/bus_errors`],
  ['POST', `${ROOT}/software/action/DownloadViaTFTP`],
  ['POST', `${ROOT}/logging/entry/1/action/Delete`],
];

describe('no input produces a 5xx', () => {
  const bodies = [
    '',
    '{',
    '{"data":',
    'null',
    '[]',
    '"data"',
    '{"data": undefined}',
    '{"data": NaN}',
    '{"data": 1e400}',
    '{"data": -0}',
    '{"data": 123456789012345678901234567890}',
    '{"data": "\\ud800"}',
    '{"data": {"__proto__": {"polluted": 1}}}',
    '{"__proto__": {"data": 1}}',
    '{"data": 1, "data": 2}',
    '{"data": ' + '['.repeat(20000) + ']'.repeat(20000) + '}',
    '\u0000\u0001',
    '\uFEFF{"data": []}',
  ];

  it.each(jsonRoutes)('%s %s survives malformed and odd JSON bodies', async (method, path) => {
    // Wrong or missing media types
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x']) {
      const cookie = path === '/logout' ? await login(s.sim.url) : s.cookie;
      const r = await call(s.sim.url, method, path, { raw: '{"data": []}', contentType, cookie });
      expect(r.status).toBe(415);
      expectSane(r, `${method} ${path} ${contentType}`);
    }
    for (const raw of bodies) {
      // Logout really ends sessions: give it a throwaway one.
      const cookie = path === '/logout' ? await login(s.sim.url) : s.cookie;
      const r = await call(s.sim.url, method, path, { raw, contentType: 'application/json', cookie });
      expectSane(r, `${method} ${path} ${raw.slice(0, 40)}`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an oversized JSON body answers 413', async () => {
    const raw = JSON.stringify({ data: 'x'.repeat(1024 * 1024 + 10) });
    const r = await s.call('PUT', `${ROOT}/inventory/system/attr/AssetTag`, { raw, contentType: 'application/json' });
    expect(r.status).toBe(413);
    expectSane(r, '413');
    expect((await s.get(`${ROOT}/inventory/system/attr/AssetTag`)).status).toBe(200);
  });

  it('a JSON body just under the limit is accepted', async () => {
    const value = 'y'.repeat(1024 * 1024 - 100);
    const r = await s.put(`${ROOT}/inventory/system/attr/AssetTag`, value);
    expect(r.status).toBe(200);
  });

  it('random paths and methods never give a 5xx', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'xyz',
        'mgmt_project',
        'inventory',
        'system',
        'attr',
        'action',
        'list',
        'enumerate',
        '',
        '.',
        '..',
        'AssetTag',
        'Reset',
        '%2F',
        '%00',
        'é',
        '%C3%A9',
        '%',
        '~',
        ';',
        '?q=1',
        '#',
      ),
      fc.string({ maxLength: 6 }).map((x) => encodeURIComponent(x)),
    );
    const method = fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 7 }), method, fc.boolean(), async (segments, m, trailing) => {
        const path = '/' + segments.join('/') + (trailing ? '/' : '');
        const head = `${m} ${path} HTTP/1.1\r\nHost: x\r\nCookie: ${s.cookie}\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"data":[]}`;
        const r = await rawHttps(s.sim.port, head);
        if (m === 'HEAD') {
          expect(r.status).toBeLessThan(500);
          return;
        }
        expect(r.status, path).toBeLessThan(500);
        expect(r.status, path).toBeGreaterThanOrEqual(200);
        expect(r.body?.status, path).toBe(r.status < 400 ? 'ok' : 'error');
      }),
      { numRuns: 150 },
    );
    // Reset undoes whatever the random requests did.
    await s.post(`${ROOT}/software/action/Reset`, []);
  });

  it('random attribute values are either stored as typed or refused with 400', async () => {
    const value = fc.jsonValue({ maxDepth: 2 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('AssetTag', 'PowerCap', 'Asserted', 'State'), value, async (name, v) => {
        const path = {
          AssetTag: `${ROOT}/inventory/system`,
          PowerCap: `${ROOT}/control/power_cap`,
          Asserted: `${ROOT}/led/groups/enclosure_identify`,
          State: `${ROOT}/led/physical/identify`,
        }[name];
        const r = await s.put(`${path}/attr/${name}`, v);
        expect([200, 400]).toContain(r.status);
        const now = (await s.get(`${path}/attr/${name}`)).body.data;
        if (name === 'AssetTag') expect(typeof now).toBe('string');
        if (name === 'PowerCap') expect(Number.isInteger(now) && now >= 0).toBe(true);
        if (name === 'Asserted') expect([0, 1]).toContain(now);
        if (name === 'State') expect(now).toMatch(new RegExp(`^${I}\\.Led\\.Physical\\.Action\\.`));
      }),
      { numRuns: 120 },
    );
  });

  it('nothing was logged as an internal error', () => {
    expect(logged).toEqual([]);
  });
});
