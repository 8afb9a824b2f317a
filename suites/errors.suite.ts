/** Errors: the error envelope, 200 ok on success, and no server error for any odd input. */
import type { BmcResponse, RequestOptions } from '../client/http.js';
import { check, type CheckContext } from './support/check.js';
import { describeResponse, ensure, envelopeOf, errorEnvelopeProblems, expectOk, show } from './support/assert.js';
import { getObject } from './support/tree.js';
import { firstWritePlan, restoreAfter } from './support/writable.js';

interface Probe {
  what: string;
  method: string;
  path: string;
  opts?: RequestOptions;
}

/** Requests that must be answered with an error, not a crash; none of them can change anything. */
function oddReads(t: CheckContext): Probe[] {
  const sys = `${t.root}/inventory/system`;
  return [
    { what: 'unknown path', method: 'GET', path: `${t.root}/bmc_conformance_missing` },
    { what: 'unknown attribute', method: 'GET', path: `${sys}/attr/BmcConformanceMissing` },
    { what: 'unicode path', method: 'GET', path: `${t.root}/${encodeURIComponent('é✓')}` },
    { what: 'raw non-ASCII path', method: 'GET', path: `${t.root}/inventory/systemé` },
    { what: 'percent-encoded slash', method: 'GET', path: `${t.root}/inventory%2Fsystem` },
    { what: 'dot-dot segment', method: 'GET', path: `${t.root}/inventory/../inventory/system` },
    { what: 'doubled slash', method: 'GET', path: `${t.root}//inventory/system` },
    { what: 'very long segment', method: 'GET', path: `${t.root}/${'a'.repeat(4000)}` },
    { what: 'attr without a name', method: 'GET', path: `${sys}/attr/` },
    { what: 'enumerate of an unknown path', method: 'GET', path: `${t.root}/bmc_conformance_missing/enumerate` },
    { what: 'malformed login JSON', method: 'POST', path: '/login', opts: { body: '{"data": ["root", ', contentType: 'application/json', auth: false } },
    { what: 'login with a text body', method: 'POST', path: '/login', opts: { body: 'root 0penBmc', contentType: 'text/plain', auth: false } },
    { what: 'login with nested arrays', method: 'POST', path: '/login', opts: { json: { data: [[['root']], { a: 1 }] }, auth: false } },
  ];
}

/** Malformed writes: all are refused by a conforming target, and a faulty one is restored by value. */
function oddWrites(t: CheckContext): Probe[] {
  const sys = `${t.root}/inventory/system`;
  return [
    { what: 'malformed JSON on PUT', method: 'PUT', path: `${sys}/attr/AssetTag`, opts: { body: '{"data": ', contentType: 'application/json' } },
    { what: 'PUT without data', method: 'PUT', path: `${sys}/attr/AssetTag`, opts: { json: { value: 1 } } },
    { what: 'PUT with a text body', method: 'PUT', path: `${sys}/attr/AssetTag`, opts: { body: 'x', contentType: 'text/plain' } },
    { what: 'action with a non-array data', method: 'POST', path: `${t.root}/software/action/BmcConformanceNoSuchMethod`, opts: { json: { data: 'x' } } },
    { what: 'PUT on a listing', method: 'PUT', path: `${t.root}/inventory/`, opts: { json: { data: {} } } },
  ];
}

async function send(t: CheckContext, p: Probe): Promise<BmcResponse> {
  try {
    return await t.client.request(p.method, p.path, { relogin: false, ...p.opts });
  } catch (err) {
    throw new Error(`${p.what} (${p.method} ${p.path.slice(0, 80)}) dropped the connection: ${(err as Error).message}`);
  }
}

async function expectNoServerError(t: CheckContext, probes: Probe[]): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const p of probes) {
    const res = await send(t, p);
    statuses[p.what] = res.status;
    ensure(res.status < 500, `${p.what} (${p.method} ${p.path.slice(0, 80)}) answered ${describeResponse(res)}`);
  }
  // The service still answers a known-good request afterwards.
  await getObject(t.client, `${t.root}/inventory/system`);
  return statuses;
}

check('ERR-1', 'error responses carry status "error", the status line and data.description', async (t) => {
  let seen = 0;
  for (const p of oddReads(t).slice(0, 4)) {
    const res = await send(t, p);
    if (res.status < 400 || res.text.trim() === '') continue;
    const problems = errorEnvelopeProblems(res);
    ensure(problems.length === 0, `${p.what} (${res.status}): ${problems.join('; ')}`);
    seen += 1;
  }
  ensure(seen > 0, 'no request provoked an error response with a body');
});

check('ERR-4', 'successful requests answer exactly 200 OK with status "ok"', async (t) => {
  for (const path of [`${t.root}/`, `${t.root}/inventory/system`, `${t.root}/inventory/system/attr/Model`, `${t.root}/time/list`, `${t.root}/time/enumerate`]) {
    const res = await t.client.get(path);
    ensure(res.status === 200, `GET ${path} answered ${describeResponse(res)}, expected 200 OK`);
    expectOk(res, `GET ${path}`);
  }
});

check('ERR-4', 'a successful write answers exactly 200 OK with status "ok"', async (t) => {
  const plan = await firstWritePlan(t);
  restoreAfter(t, plan);
  const { path, name } = plan.attr;
  const res = await t.client.put(`${path}/attr/${name}`, plan.next);
  ensure(res.status === 200, `PUT ${path}/attr/${name} answered ${describeResponse(res)}, expected 200 OK`);
  expectOk(res, `PUT ${path}/attr/${name}`);
}, { profile: 'safe' });

check('ERR-5', 'odd paths, encodings and malformed login bodies give no server error', async (t) => {
  t.observe('statuses of odd requests', await expectNoServerError(t, oddReads(t)), 'ERR-6');
});

check('ERR-5', 'malformed writes give no server error and change nothing', async (t) => {
  const sys = `${t.root}/inventory/system`;
  const before = await getObject(t.client, sys);
  t.cleanup(async () => {
    const after = await getObject(t.client, sys);
    if (after.AssetTag !== before.AssetTag) await t.client.put(`${sys}/attr/AssetTag`, before.AssetTag);
  });
  t.observe('statuses of malformed writes', await expectNoServerError(t, oddWrites(t)), 'ERR-6');
  const after = await getObject(t.client, sys);
  ensure(after.AssetTag === before.AssetTag, `a malformed write changed AssetTag to ${show(after.AssetTag)}`);
}, { profile: 'safe' });

check('ERR-6', 'record the statuses of a wrong method and an unknown path', async (t) => {
  const wrongMethod = await t.client.request('GET', '/login', { relogin: false });
  const unknown = await t.client.get(`${t.root}/bmc_conformance_missing`);
  t.observe('GET /login', wrongMethod.status);
  t.observe('unknown path', unknown.status);
});

check('RULE-9', 'record the response bodies of login and logout', async (t) => {
  const c = t.client.fork();
  try {
    const login = await c.tryLogin({ data: [t.cfg.user, t.cfg.password] }, { store: true });
    expectOk(login, 'POST /login');
    const logout = await c.logout();
    t.observe('login data', envelopeOf(login)?.data ?? null);
    t.observe('logout data', envelopeOf(logout)?.data ?? null);
  } finally {
    await c.close();
  }
});

check(['LIM-1', 'ERR-5'], 'record the answer to a 2 MiB JSON body', async (t) => {
  const body = JSON.stringify({ data: [t.cfg.user, 'x'.repeat(2 * 1024 * 1024)] });
  const c = t.client.fork();
  try {
    const res = await c.request('POST', '/login', { body, contentType: 'application/json', auth: false, relogin: false });
    t.observe('2 MiB login body', res.status);
    ensure(res.status < 500, `a 2 MiB body answered ${describeResponse(res)}`);
    ensure(res.status >= 400, `a 2 MiB login body with a wrong password answered ${describeResponse(res)}`);
  } finally {
    await c.close();
  }
  await getObject(t.client, `${t.root}/inventory/system`);
});
