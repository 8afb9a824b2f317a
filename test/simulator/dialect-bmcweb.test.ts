/** The bmcweb dialect behaves as bmcweb's D-Bus REST API (openbmc_dbus_rest.hpp and friends) does. */
import { afterAll, assert, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { call, I, openSocket, rawHttps, ROOT, sleep, subscribe, type CallOptions, type Reply } from './helpers.js';

const SYSTEM = `${ROOT}/inventory/system`;
const LED = `${ROOT}/led/groups/enclosure_identify`;
const CAP = `${ROOT}/control/power_cap`;
const HOST = `${ROOT}/state/host0`;
const octet = 'application/octet-stream';

interface BmcwebLogin {
  token: string;
  /** "XSRF-TOKEN=...; BMCWEB-SESSION=..." */
  cookie: string;
  xsrf: string;
  setCookie: string[];
}

async function bmcwebLogin(base: string): Promise<BmcwebLogin> {
  const r = await call(base, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status}`);
  const setCookie = r.headers['set-cookie'] as string[];
  const pairs = setCookie.map((c) => c.replace(/;.*/s, ''));
  const xsrf = pairs[0]?.split('=')[1];
  assert(xsrf !== undefined, `no cookie value first in ${setCookie.join(', ')}`);
  return { token: r.body.token, cookie: pairs.join('; '), xsrf, setCookie };
}

let sim: RunningSimulator;
let auth: BmcwebLogin;
const as = (method: string, path: string, opts: CallOptions = {}): Promise<Reply> =>
  call(sim.url, method, path, { ...opts, headers: { 'x-auth-token': auth.token, ...opts.headers } });
const put = (path: string, data: unknown) => as('PUT', path, { json: { data } });

beforeAll(async () => {
  sim = await startSimulator({ dialect: 'bmcweb', uploadFailDelayMs: 800, transitionDelayMs: 20 });
  auth = await bmcwebLogin(sim.url);
});
afterAll(() => sim.close());
beforeEach(async () => {
  await as('POST', `${ROOT}/software/action/Reset`, { json: { data: [] } });
});

describe('authentication comes before routing', () => {
  it('without a session any path answers 401 with an empty body (and a Basic challenge)', async () => {
    for (const path of [`${ROOT}/nothere`, SYSTEM, '/anything']) {
      const r = await call(sim.url, 'GET', path);
      expect(r.status).toBe(401);
      expect(r.text).toBe('');
      expect(r.headers['www-authenticate']).toBe('Basic');
    }
    const browser = await call(sim.url, 'GET', SYSTEM, { headers: { accept: 'text/html' } });
    expect(browser.text).toBe('No authentication provided, and no login UI present to forward to.');
  });

  it('the spec form of /login is refused with 400; {"username", "password"} answers a token and two cookies', async () => {
    const spec = await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } });
    expect(spec.status).toBe(400);
    expect(spec.text).toBe('');
    expect((await call(sim.url, 'POST', '/login', { json: { data: { username: 'root', password: '0penBmc' } } })).status).toBe(400);
    expect((await call(sim.url, 'POST', '/login', { json: { username: 'root', password: 'nope' } })).status).toBe(401);
    const l = await bmcwebLogin(sim.url);
    expect(l.token).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(l.setCookie[0]).toMatch(/^XSRF-TOKEN=[A-Za-z0-9]{20}; Path=\/; SameSite=Strict; Secure$/);
    expect(l.setCookie[1]).toBe(`BMCWEB-SESSION=${l.token}; Path=/; SameSite=Strict; Secure; HttpOnly`);
  });

  it('PAM reads the user name and the password as C strings: a NUL and anything after it are cut off', async () => {
    const login = (username: string, password: string) => call(sim.url, 'POST', '/login', { json: { username, password } });
    for (const [user, password] of [
      ['root\u0000', '0penBmc'],
      ['root\u0000root', '0penBmc'],
      ['root', '0penBmc\u0000x'],
    ]) {
      const r = await login(user!, password!);
      expect(r.status).toBe(200);
      expect((await call(sim.url, 'GET', SYSTEM, { headers: { 'x-auth-token': r.body.token } })).status).toBe(200);
    }
    expect((await login('ro\u0000ot', '0penBmc')).status).toBe(401);
    expect((await login('root ', '0penBmc')).status).toBe(401);
    expect((await login('ROOT', '0penBmc')).status).toBe(401);
    const basic = Buffer.from('root\u0000x:0penBmc').toString('base64');
    expect((await call(sim.url, 'GET', SYSTEM, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });

  it('the token works as X-Auth-Token and as Authorization: Token; Basic authentication works too', async () => {
    expect((await call(sim.url, 'GET', SYSTEM, { headers: { 'x-auth-token': auth.token } })).status).toBe(200);
    expect((await call(sim.url, 'GET', SYSTEM, { headers: { authorization: `Token ${auth.token}` } })).status).toBe(200);
    const basic = Buffer.from('root:0penBmc').toString('base64');
    expect((await call(sim.url, 'GET', SYSTEM, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);
  });

  it('with the cookie every non-GET request needs X-XSRF-TOKEN equal to the XSRF-TOKEN cookie', async () => {
    expect((await call(sim.url, 'GET', SYSTEM, { cookie: auth.cookie })).status).toBe(200);
    const without = await call(sim.url, 'PUT', `${SYSTEM}/attr/AssetTag`, { cookie: auth.cookie, json: { data: 'X' } });
    expect(without.status).toBe(401);
    const wrong = await call(sim.url, 'PUT', `${SYSTEM}/attr/AssetTag`, {
      cookie: auth.cookie,
      headers: { 'x-xsrf-token': 'A'.repeat(20) },
      json: { data: 'X' },
    });
    expect(wrong.status).toBe(401);
    const right = await call(sim.url, 'PUT', `${SYSTEM}/attr/AssetTag`, {
      cookie: auth.cookie,
      headers: { 'x-xsrf-token': auth.xsrf },
      json: { data: 'X' },
    });
    expect(right.status).toBe(200);
  });

  it('logout needs the session, answers the phosphor-style envelope and ends the token', async () => {
    const l = await bmcwebLogin(sim.url);
    expect((await call(sim.url, 'POST', '/logout')).status).toBe(401);
    const out = await call(sim.url, 'POST', '/logout', { headers: { 'x-auth-token': l.token } });
    expect(out.body).toEqual({ data: "User 'root' logged out", message: '200 OK', status: 'ok' });
    expect((await call(sim.url, 'GET', SYSTEM, { headers: { 'x-auth-token': l.token } })).status).toBe(401);
  });
});

describe('objects and values', () => {
  it('names are exact and booleans are JSON true/false everywhere', async () => {
    expect((await as('GET', `${SYSTEM}/attr/Present`)).body.data).toBe(true);
    expect((await as('GET', `${SYSTEM}/attr/present`)).status).toBe(404);
    expect((await as('GET', SYSTEM)).body.data.Cached).toBe(false);
    expect((await as('GET', `${ROOT}/inventory/enumerate`)).body.data[SYSTEM].Present).toBe(true);
  });

  it('a missing path answers 404 with a fixed text; an intermediate node answers 200 with an empty body', async () => {
    const r = await as('GET', `${ROOT}/nothere`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      data: { description: 'org.freedesktop.DBus.Error.FileNotFound: path or object not found' },
      message: '404 Not Found',
      status: 'error',
    });
    // handleGet skips the node's services (none has an interface) and nothing writes the response.
    const node = await as('GET', `${ROOT}/state`);
    expect([node.status, node.text]).toEqual([200, '']);
  });

  it('attr/ of an empty array answers 404 "The specified property cannot be found"; the object and enumerate map it to []', async () => {
    const eth0 = `${ROOT}/network/eth0`;
    for (const name of ['NTPServers', 'DomainName']) {
      const r = await as('GET', `${eth0}/attr/${name}`);
      expect([r.status, r.body]).toEqual([
        404,
        { data: { description: 'The specified property cannot be found' }, message: '404 Not Found', status: 'error' },
      ]);
      expect((await as('GET', eth0)).body.data[name]).toEqual([]);
      expect((await as('GET', `${ROOT}/network/enumerate`)).body.data[eth0][name]).toEqual([]);
    }
    expect((await as('GET', `${eth0}/attr/Nameservers`)).body.data).toEqual(['192.0.2.53']);
  });

  it('enumerate names the objects below the path, never the path itself', async () => {
    const data = (await as('GET', `${SYSTEM}/enumerate`)).body.data;
    expect(Object.keys(data)).not.toContain(SYSTEM);
    expect(Object.keys(data)).toContain(`${SYSTEM}/chassis`);
  });
});

describe('writes', () => {
  it('a wrong value type answers 500 carrying a "400" message', async () => {
    const r = await put(`${SYSTEM}/attr/AssetTag`, 5);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ data: { description: 'Invalid arg type' }, message: '400 Bad Request', status: 'error' });
    const range = await put(`${CAP}/attr/PowerCap`, 2 ** 32);
    expect(range.status).toBe(500);
    expect(range.body.data.description).toBe('Provided property value is out of range for the property type');
    expect((await put(`${LED}/attr/Asserted`, 2)).status).toBe(500);
  });

  it('booleans take 1/0 and strings starting with t; a read-only property or bad enumeration is 403 with the D-Bus error', async () => {
    expect((await put(`${LED}/attr/Asserted`, 'true')).status).toBe(200);
    expect((await as('GET', `${LED}/attr/Asserted`)).body.data).toBe(true);
    expect((await put(`${LED}/attr/Asserted`, 0)).status).toBe(200);
    expect((await as('GET', `${LED}/attr/Asserted`)).body.data).toBe(false);
    const ro = await put(`${SYSTEM}/attr/Model`, 'X');
    expect(ro.status).toBe(403);
    expect(ro.body).toEqual({
      data: { description: 'org.freedesktop.DBus.Error.PropertyReadOnly' },
      message: "Property 'Model' is not writable.",
      status: 'error',
    });
    expect((await put(`${HOST}/attr/RequestedHostTransition`, 'nonsense')).status).toBe(403);
  });

  it('PUT of a whole object answers 403; on a missing path 403 with description and message swapped, as the source has them', async () => {
    const whole = await as('PUT', SYSTEM, { json: { data: {} } });
    expect(whole.status).toBe(403);
    expect(whole.body.data.description).toBe('The specified resource cannot be created');
    const missing = await put(`${ROOT}/nothere/attr/X`, 1);
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({
      data: { description: '403 Forbidden' },
      message: 'The specified property cannot be created',
      status: 'error',
    });
  });

  it('POST that would create answers 405; DELETE without the Delete interface 404; DELETE of a missing path 405', async () => {
    const post = await as('POST', SYSTEM, { json: { data: [] } });
    expect(post.status).toBe(405);
    expect(post.body.data.description).toBe('Method not allowed');
    const del = await as('DELETE', SYSTEM);
    expect(del.status).toBe(404);
    expect(del.body.data.description).toBe('The specified method cannot be found');
    expect((await as('DELETE', `${ROOT}/nothere`)).status).toBe(405);
    expect((await as('DELETE', `${ROOT}/logging/entry/1`)).status).toBe(200);
    expect((await as('PATCH', SYSTEM, { json: { data: {} } })).status).toBe(405);
  });

  it('actions: exact names, arguments converted by signature, unknown method 404', async () => {
    expect((await as('POST', `${ROOT}/logging/entry/2/action/delete`, { json: { data: [] } })).status).toBe(404);
    const few = await as('POST', `${ROOT}/software/action/DownloadViaTFTP`, { json: { data: ['x'] } });
    expect(few.body).toEqual({ data: { description: 'Invalid method args' }, message: '400 Bad Request', status: 'error' });
    const types = await as('POST', `${ROOT}/software/action/DownloadViaTFTP`, { json: { data: [1, 2] } });
    expect(types.body.data.description).toBe('Invalid method arg type');
  });
});

describe('uploads and body limits', () => {
  it('a concurrent upload answers 503 with Retry-After; a failed one 400 after the wait', async () => {
    const first = as('POST', '/upload/image', { raw: Buffer.from('not a tarball'), contentType: octet });
    await sleep(100);
    const second = await as('POST', '/upload/image', { raw: buildImageTarball({ version: 'bmcweb-2nd' }), contentType: octet });
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('30');
    const failed = await first;
    expect(failed.status).toBe(400);
    expect(failed.body).toEqual({
      data: { description: 'Version already exists or failed to be extracted' },
      message: '400 Bad Request',
      status: 'error',
    });
  });

  it('an upload answers the version id; the remote name is ignored', async () => {
    const r = await as('PUT', '/upload/image/chosen.tar', { raw: buildImageTarball({ version: 'bmcweb-named' }), contentType: octet });
    expect(r.status).toBe(200);
    const path = (await as('GET', `${ROOT}/software/${r.body.data}/attr/Path`)).body.data as string;
    expect(path).toMatch(/^\/tmp\/images\/[0-9a-f-]{36}$/);
  });

  it('a body over 30 MiB answers 413; over 4 KiB without a session 401; both close the connection', async () => {
    const big = await rawHttps(
      sim.port,
      `POST /upload/image HTTP/1.1\r\nHost: x\r\nX-Auth-Token: ${auth.token}\r\nContent-Length: ${30 * 1024 * 1024 + 1}\r\n\r\n`,
    );
    expect(big.status).toBe(413);
    expect(big.text).toMatch(/connection: close/i);
    const anon = await rawHttps(sim.port, `POST /upload/image HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(5000)}`);
    expect(anon.status).toBe(401);
  });
});

describe('events', () => {
  // A session that authenticated by cookie once wants the CSRF subprotocol on every WebSocket after
  // (the flag sits on the session), so the token-only sockets here use a session of their own.
  let h: { headers: Record<string, string> };
  beforeAll(async () => {
    h = { headers: { 'x-auth-token': (await bmcwebLogin(sim.url)).token } };
  });

  it('InterfacesAdded: path is the emitting ObjectManager; interfaces lists only those the filter names', async () => {
    const bare = await subscribe(sim.url, '', { paths: [`${ROOT}/software`] }, h);
    const named = await subscribe(sim.url, '', { paths: ['/'], interfaces: [`${I}.Software.Version`] }, h);
    await as('POST', '/upload/image', { raw: buildImageTarball({ version: 'bmcweb-ia' }), contentType: octet });
    const [a] = await bare.waitFor(1);
    expect(a).toEqual({ event: 'InterfacesAdded', path: `${ROOT}/software` });
    const [b] = await named.waitFor(1);
    expect(b.path).toBe(`${ROOT}/software`);
    expect(Object.keys(b.interfaces)).toEqual([`${I}.Software.Version`]);
    bare.close();
    named.close();
  });

  it('paths are prefixes, ANDed with interfaces; booleans are true/false', async () => {
    const sub = await subscribe(sim.url, '', { paths: [`${ROOT}/led`], interfaces: [`${I}.Led.Group`] }, h);
    await put(`${LED}/attr/Asserted`, true);
    await put(`${SYSTEM}/attr/AssetTag`, 'OUTSIDE');
    await put(`${ROOT}/led/physical/identify/attr/State`, `${I}.Led.Physical.Action.On`);
    const msgs = await sub.waitFor(1);
    await sleep(50);
    expect(msgs).toEqual([{ event: 'PropertiesChanged', path: LED, interface: `${I}.Led.Group`, properties: { Asserted: true } }]);
    sub.close();
  });

  it('a filter without paths closes with a reason; bad JSON too', async () => {
    expect(await (await subscribe(sim.url, '', { interfaces: [] }, h)).closed).toEqual({
      code: 1000,
      reason: 'Unable to find paths in json data',
    });
    expect(await (await subscribe(sim.url, '', '{nope', h)).closed).toEqual({ code: 1000, reason: 'Unable to parse json request' });
  });

  it('the handshake without a session is refused with 401; with the cookie it needs the XSRF token as Sec-WebSocket-Protocol', async () => {
    const status = (ws: ReturnType<typeof openSocket>) =>
      new Promise<number>((resolve) => {
        ws.on('open', () => {
          resolve(101);
          ws.terminate();
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => resolve(-1));
      });
    expect(await status(openSocket(sim.url))).toBe(401);
    expect(await status(openSocket(sim.url, auth.cookie))).toBe(401);
    const withProtocol = openSocket(sim.url, auth.cookie, { protocols: [auth.xsrf] });
    expect(await status(withProtocol)).toBe(101);
    expect(withProtocol.protocol).toBe(auth.xsrf);
  });

  it('the cookie flag sticks to the session: once used with the cookie, a token-only handshake needs the protocol too', async () => {
    const l = await bmcwebLogin(sim.url);
    const tokenOnly = () =>
      new Promise<number>((resolve) => {
        const ws = openSocket(sim.url, undefined, { headers: { 'x-auth-token': l.token } });
        ws.on('open', () => {
          resolve(101);
          ws.terminate();
        });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      });
    expect(await tokenOnly()).toBe(101);
    await call(sim.url, 'GET', SYSTEM, { cookie: l.cookie });
    expect(await tokenOnly()).toBe(401);
  });
});

describe('bmcweb@2023: a build of June 2023 (commit 8d69c668d9be)', () => {
  let old: RunningSimulator;
  beforeAll(async () => {
    old = await startSimulator({ dialect: 'bmcweb@2023', uploadFailDelayMs: 800 });
  });
  afterAll(() => old.close());

  it('takes the spec login, answers it with an envelope and sets SESSION and XSRF-TOKEN (no Path)', async () => {
    const r = await call(old.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } });
    expect([r.status, r.body]).toEqual([200, { data: "User 'root' logged in", message: '200 OK', status: 'ok' }]);
    const cookies = r.headers['set-cookie'] as string[];
    expect(cookies.map((c) => c.replace(/=.*/s, ''))).toEqual(['XSRF-TOKEN', 'SESSION']);
    expect(cookies.join('\n')).not.toMatch(/Path=/);
    const session = cookies.map((c) => c.replace(/;.*/s, '')).join('; ');
    const got = await call(old.url, 'GET', SYSTEM, { cookie: session });
    expect(got.status).toBe(200);
    // The cookie of the current version names no session here.
    expect((await call(old.url, 'GET', SYSTEM, { cookie: session.replace('SESSION=', 'BMCWEB-SESSION=X') })).status).toBe(401);
  });

  it('answers {"username", "password"} with the token and no cookie; a wrong password 401 "Unauthorized"', async () => {
    const r = await call(old.url, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } });
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(r.headers['set-cookie']).toBeUndefined();
    const nested = await call(old.url, 'POST', '/login', { json: { data: { username: 'root', password: '0penBmc' } } });
    expect(nested.body.token).toMatch(/^[A-Za-z0-9]{20}$/);
    const wrong = await call(old.url, 'POST', '/login', { json: { data: ['root', 'nope'] } });
    expect([wrong.status, wrong.text, wrong.headers['content-type']]).toEqual([401, 'Unauthorized', undefined]);
    const three = await call(old.url, 'POST', '/login', { json: { data: ['root', '0penBmc', 'x'] } });
    expect([three.status, three.text]).toEqual([400, 'Bad Request']);
  });

  it('logs in a user name with a NUL as the user before it, and names the user as sent', async () => {
    const r = await call(old.url, 'POST', '/login', { json: { data: ['root\u0000', '0penBmc'] } });
    expect([r.status, r.body]).toEqual([200, { data: "User 'root\u0000' logged in", message: '200 OK', status: 'ok' }]);
    const session = (r.headers['set-cookie'] as string[]).map((c) => c.replace(/;.*/s, '')).join('; ');
    expect((await call(old.url, 'GET', SYSTEM, { cookie: session })).status).toBe(200);
    expect((await call(old.url, 'POST', '/login', { json: { data: ['nobody\u0000', '0penBmc'] } })).status).toBe(401);
  });

  it('gives every refusal without a body its reason phrase as plain text, without a Content-Type', async () => {
    const anon = await call(old.url, 'GET', SYSTEM);
    expect([anon.status, anon.text, anon.headers['content-type']]).toEqual([401, 'Unauthorized', undefined]);
    const token = (await call(old.url, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } })).body.token as string;
    const root = await call(old.url, 'GET', '/', { headers: { 'x-auth-token': token } });
    expect([root.status, root.text, root.headers['content-type']]).toEqual([404, 'Not Found', undefined]);
    // The slash forms of the fixed routes came only in 2026.
    const slash = await call(old.url, 'POST', '/logout/', { headers: { 'x-auth-token': token } });
    expect([slash.status, slash.text]).toEqual([404, 'Not Found']);
    // A D-Bus REST error is still its JSON envelope.
    const missing = await call(old.url, 'GET', `${ROOT}/nothere`, { headers: { 'x-auth-token': token } });
    expect([missing.status, missing.body.status]).toEqual([404, 'error']);
  });

  it('answers GET of a path node without interfaces with an empty data map; enumerate leaves out the path itself', async () => {
    const token = (await call(old.url, 'POST', '/login', { json: { username: 'root', password: '0penBmc' } })).body.token as string;
    const node = await call(old.url, 'GET', `${ROOT}/state`, { headers: { 'x-auth-token': token } });
    expect([node.status, node.body]).toEqual([200, { data: {}, message: '200 OK', status: 'ok' }]);
    const data = (await call(old.url, 'GET', `${SYSTEM}/enumerate`, { headers: { 'x-auth-token': token } })).body.data;
    expect(Object.keys(data)).not.toContain(SYSTEM);
    expect(Object.keys(data)).toContain(`${SYSTEM}/chassis`);
  });
});

describe('a request head over 8192 bytes (http_connection.hpp httpHeaderLimit)', () => {
  /** A GET whose request line and headers together are `bytes` long. */
  const head = (port: number, bytes: number) => {
    const [start, end] = [`GET ${ROOT}/`, ' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'];
    return rawHttps(port, `${start}${'a'.repeat(bytes - start.length - end.length)}${end}`);
  };
  const port = (url: string) => Number(new URL(url).port);

  // Node's parser checks the limit as the bytes arrive: a head a few bytes over may still pass.
  it('bmcweb@2023 closes the connection without an answer; a head within the limit is answered', async () => {
    const old = await startSimulator({ dialect: 'bmcweb@2023' });
    try {
      expect((await head(port(old.url), 8192)).status).toBe(401);
      expect(await head(port(old.url), 9000)).toMatchObject({ status: 0, text: '' });
      expect(await head(port(old.url), 20_000)).toMatchObject({ status: 0, text: '' });
    } finally {
      await old.close();
    }
  });

  it('bmcweb (current) answers it 431', async () => {
    expect((await head(port(sim.url), 8192)).status).toBe(401);
    expect((await head(port(sim.url), 9000)).status).toBe(431);
    expect((await head(port(sim.url), 20_000)).status).toBe(431);
  });
});

describe('bmcweb (current): the slash forms of the fixed routes', () => {
  it('answer as without the slash', async () => {
    const r = await call(sim.url, 'POST', '/login/', { json: { username: 'root', password: '0penBmc' } });
    expect(r.status).toBe(200);
    expect(r.body.token).toMatch(/^[A-Za-z0-9]{20}$/);
  });
});
