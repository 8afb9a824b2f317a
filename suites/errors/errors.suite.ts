/** Errors: the error envelope, 200 ok on success, and no server error for any odd input. */
import type { BmcResponse, RequestOptions } from '../../client/http.js';
import { ConnectionLostError } from '../../client/errors.js';
import { check, type CheckContext } from '../harness/check.js';
import { describeResponse, ensure, envelopeOf, errorDataProblem, notJudged, show } from '../harness/assert.js';
import { getObject } from '../harness/tree.js';
import { firstWritePlan, restoreAfter } from '../harness/writable.js';

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
    {
      what: 'malformed login JSON',
      method: 'POST',
      path: '/login',
      opts: { body: '{"data": ["root", ', contentType: 'application/json', auth: false },
    },
    {
      what: 'login with a text body',
      method: 'POST',
      path: '/login',
      opts: { body: 'root 0penBmc', contentType: 'text/plain', auth: false },
    },
    { what: 'login with nested arrays', method: 'POST', path: '/login', opts: { json: { data: [[['root']], { a: 1 }] }, auth: false } },
  ];
}

/** Malformed writes: all are refused by a conforming target, and a faulty one is restored by value. */
function oddWrites(t: CheckContext): Probe[] {
  const sys = `${t.root}/inventory/system`;
  return [
    {
      what: 'malformed JSON on PUT',
      method: 'PUT',
      path: `${sys}/attr/AssetTag`,
      opts: { body: '{"data": ', contentType: 'application/json' },
    },
    { what: 'PUT without data', method: 'PUT', path: `${sys}/attr/AssetTag`, opts: { json: { value: 1 } } },
    { what: 'PUT with a text body', method: 'PUT', path: `${sys}/attr/AssetTag`, opts: { body: 'x', contentType: 'text/plain' } },
    {
      what: 'action with a non-array data',
      method: 'POST',
      path: `${t.root}/software/action/BmcConformanceNoSuchMethod`,
      opts: { json: { data: 'x' } },
    },
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
  await expectStillAnswering(t);
  return statuses;
}

/** ERR-5's second half: the service still answers a known-good request afterwards. */
async function expectStillAnswering(t: CheckContext): Promise<void> {
  const sys = `${t.root}/inventory/system`;
  const res = await t.client.get(sys).catch((err: Error) => err);
  ensure(
    !(res instanceof Error) && res.status === 200,
    `after the odd requests, GET ${sys} answered ${res instanceof Error ? res.message : describeResponse(res)}`,
    'ERR-5',
  );
}

check('ERR-1', 'error responses carry data with a description string', async (t) => {
  let seen = 0;
  for (const p of oddReads(t).slice(0, 4)) {
    const res = await send(t, p);
    // An error body that is no JSON envelope at all is ENV-4's and ENV-1's to judge.
    if (res.status < 400 || envelopeOf(res) === undefined) continue;
    const problem = errorDataProblem(res);
    ensure(!problem, `${p.what} (${res.status}): ${problem}`);
    seen += 1;
  }
  if (seen === 0) t.notTested('no request provoked an error response with a JSON envelope (see ENV-1, ENV-4)');
});

/** ERR-4 is about the code: 200 exactly, not another 2xx. Whether status says "ok" is ENV-3's. */
function expect200(res: BmcResponse, what: string): void {
  ensure(res.status === 200, `${what} answered ${describeResponse(res)}, expected 200 OK`);
}

check('ERR-4', 'successful requests answer exactly 200 OK', async (t) => {
  for (const path of [
    `${t.root}/`,
    `${t.root}/inventory/system`,
    `${t.root}/inventory/system/attr/Model`,
    `${t.root}/time/list`,
    `${t.root}/time/enumerate`,
  ]) {
    expect200(await t.client.get(path), `GET ${path}`);
  }
});

check(
  'ERR-4',
  'a successful write answers exactly 200 OK',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    expect200(await t.client.put(`${path}/attr/${name}`, plan.next), `PUT ${path}/attr/${name}`);
  },
  { profile: 'safe' },
);

check('ERR-5', 'odd paths, encodings and malformed login bodies give no server error', async (t) => {
  t.observe('statuses of odd requests', await expectNoServerError(t, oddReads(t)), 'ERR-6');
});

check(
  'ERR-5',
  'malformed writes give no server error and change nothing',
  async (t) => {
    const sys = `${t.root}/inventory/system`;
    const before = await getObject(t.client, sys);
    t.cleanup(async () => {
      const after = await getObject(t.client, sys);
      if (after.AssetTag !== before.AssetTag) await t.client.put(`${sys}/attr/AssetTag`, before.AssetTag);
    });
    t.observe('statuses of malformed writes', await expectNoServerError(t, oddWrites(t)), 'ERR-6');
    const after = await getObject(t.client, sys);
    ensure(after.AssetTag === before.AssetTag, `a malformed write changed AssetTag to ${show(after.AssetTag)}`);
  },
  { profile: 'safe' },
);

check('ERR-6', 'record the statuses of a wrong method and an unknown path', async (t) => {
  const wrongMethod = await t.client.request('GET', '/login', { relogin: false });
  const unknown = await t.client.get(`${t.root}/bmc_conformance_missing`);
  t.observe('GET /login', wrongMethod.status);
  t.observe('unknown path', unknown.status);
});

check('RULE-9', 'record the response bodies of login and logout', async (t) => {
  const c = t.client.fork();
  try {
    const login = await c.login().catch((err: Error) => notJudged(`no login succeeded: ${err.message} (see EP-1)`));
    const logout = await c.logout();
    t.observe('login data', envelopeOf(login)?.data ?? null);
    t.observe('logout data', envelopeOf(logout)?.data ?? null);
  } finally {
    await c.close();
  }
});

check(['LIM-1', 'ERR-5', 'AUTH-4'], 'record the answer to a 2 MiB JSON body', async (t) => {
  const body = JSON.stringify({ data: [t.cfg.user, 'x'.repeat(2 * 1024 * 1024)] });
  const c = t.client.fork();
  try {
    const res = await c
      .request('POST', '/login', { body, contentType: 'application/json', auth: false, relogin: false })
      .catch((err: unknown) => {
        // Closing the connection on a body too large to take is an answer (a size limit the spec leaves
        // open): recorded, and no session can have come of it. The service must answer afterwards (below).
        if (err instanceof ConnectionLostError) return err;
        throw err;
      });
    if (res instanceof ConnectionLostError) {
      t.observe('2 MiB login body', `the target closed the connection (${res.fault ?? res.message})`);
      await expectStillAnswering(t);
      return;
    }
    t.observe('2 MiB login body', res.status);
    t.judge('ERR-5', res.status < 500, `a 2 MiB body answered ${describeResponse(res)}`);
    t.judge('AUTH-4', res.status < 200 || res.status >= 300, `a 2 MiB login body with a wrong password answered ${describeResponse(res)}`);
  } finally {
    await c.close();
  }
  await expectStillAnswering(t);
});
