/** The phosphor-rest dialect behaves as phosphor-rest-server (rest_dbus.py) does. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, startTftpServer, type RunningSimulator } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { call, I, login, openSocket, rawHttps, ROOT, sessionFor, sleep, subscribe, type Session } from './helpers.js';

const SYSTEM = `${ROOT}/inventory/system`;
const LED = `${ROOT}/led/groups/enclosure_identify`;
const CAP = `${ROOT}/control/power_cap`;
const HOST = `${ROOT}/state/host0`;
const octet = 'application/octet-stream';

let sim: RunningSimulator;
let s: Session;

beforeAll(async () => {
  sim = await startSimulator({ dialect: 'phosphor-rest', eventLatencyMs: 20, uploadFailDelayMs: 20, transitionDelayMs: 20, requestMs: 0 });
  s = sessionFor(sim, await login(sim.url));
});
afterAll(() => sim.close());
beforeEach(async () => {
  await s.post(`${ROOT}/software/action/Reset`, []);
});

/** GET without a session, the target sent byte for byte (no client-side normalisation). */
async function rawGet(target: string): Promise<{ status: number; body: any }> {
  return rawHttps(sim.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
}

describe('the route is checked before authentication', () => {
  it('a missing path answers 404 naming the path as normalised: slashes collapsed, dot segments kept', async () => {
    const r = await rawGet(`//xyz//${'mgmt_project'}///nothere/./x`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 'error', message: '404 Not Found' });
    expect(r.body.data.description).toBe(`org.freedesktop.DBus.Error.FileNotFound: path or object not found: ${ROOT}/nothere/./x`);
  });

  it('the description names the prefix the route resolved ({path}/attr/{name}, {path}/)', async () => {
    expect((await rawGet(`${ROOT}/nothere/attr/Foo`)).body.data.description).toMatch(/not found: \/xyz\/mgmt_project\/nothere$/);
    expect((await rawGet(`${ROOT}/nothere/`)).body.data.description).toMatch(/not found: \/xyz\/mgmt_project\/nothere$/);
  });

  it('an unknown method on an existing object answers 404 naming it; a wrong verb 405; an existing route 401 "Login required"', async () => {
    const m = await call(sim.url, 'POST', `${ROOT}/software/action/Nope`, { json: { data: [] } });
    expect(m.status).toBe(404);
    expect(m.body.data.description).toBe("The specified method cannot be found: 'Nope'");
    const v = await call(sim.url, 'PATCH', SYSTEM, { json: { data: {} } });
    expect(v.status).toBe(405);
    expect(v.headers.allow).toBe('GET,PUT,DELETE,HEAD,OPTIONS');
    const a = await call(sim.url, 'GET', SYSTEM);
    expect(a.status).toBe(401);
    expect(a.body).toEqual({ data: { description: 'Login required' }, message: '401 Unauthorized', status: 'error' });
  });

  it('spec is unchanged: every unauthenticated request answers 401 first', async () => {
    const spec = await startSimulator({});
    try {
      expect((await call(spec.url, 'GET', `${ROOT}/nothere`)).status).toBe(401);
      expect((await call(spec.url, 'POST', `${ROOT}/software/action/Nope`, { json: { data: [] } })).status).toBe(401);
    } finally {
      await spec.close();
    }
  });
});

describe('sessions', () => {
  it('login sets the cookie sid (HttpOnly; Secure) and answers the user logged in', async () => {
    const r = await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toBe("User 'root' logged in");
    expect(r.headers['set-cookie']).toMatch(/^sid="![^"]+\?[^"]+"; HttpOnly; Secure$/);
  });

  it('keeps at most 16 sessions: the 17th login silently evicts the oldest', async () => {
    const local = await startSimulator({ dialect: 'phosphor-rest' });
    try {
      const cookies: string[] = [];
      for (let i = 0; i < 17; i++) cookies.push(await login(local.url));
      expect((await call(local.url, 'GET', SYSTEM, { cookie: cookies[0] })).status).toBe(401);
      expect((await call(local.url, 'GET', SYSTEM, { cookie: cookies[1] })).status).toBe(200);
      expect((await call(local.url, 'GET', SYSTEM, { cookie: cookies[16] })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe('values', () => {
  it('a boolean is 0/1 from {path}/attr/{name}, false/true in {path} and enumerate', async () => {
    expect((await s.get(`${SYSTEM}/attr/Present`)).body.data).toBe(1);
    expect((await s.get(SYSTEM)).body.data.Present).toBe(true);
    expect((await s.get(`${ROOT}/inventory/enumerate`)).body.data[SYSTEM].Cached).toBe(false);
  });

  it('a PUT of 1 into a boolean reads back as true; a string or 2 is accepted and stored as true', async () => {
    expect((await s.put(`${LED}/attr/Asserted`, 1)).status).toBe(200);
    expect((await s.get(LED)).body.data.Asserted).toBe(true);
    await s.put(`${LED}/attr/Asserted`, false);
    expect((await s.put(`${LED}/attr/Asserted`, 'no')).status).toBe(200);
    expect((await s.get(LED)).body.data.Asserted).toBe(true);
    await s.put(`${LED}/attr/Asserted`, false);
    expect((await s.put(`${LED}/attr/Asserted`, 2)).status).toBe(200);
    expect((await s.get(`${LED}/attr/Asserted`)).body.data).toBe(1);
  });

  it('a number written to a string attribute is stored as its text', async () => {
    expect((await s.put(`${SYSTEM}/attr/AssetTag`, 5)).status).toBe(200);
    expect((await s.get(`${SYSTEM}/attr/AssetTag`)).body.data).toBe('5');
  });

  it('an integer beyond the type range and an invalid enumeration answer 500 with exception and traceback; read-only 403', async () => {
    const big = await s.put(`${CAP}/attr/PowerCap`, 2 ** 32);
    expect(big.status).toBe(500);
    expect(big.body).toMatchObject({
      status: 'error',
      message: '500 Internal Server Error',
      data: { description: 'Internal Server Error' },
    });
    expect(big.body.data.exception).toMatch(/^OverflowError\(/);
    expect(big.body.data.traceback[0]).toBe('Traceback (most recent call last):');
    expect(big.body.data.traceback.every((l: unknown) => typeof l === 'string')).toBe(true);
    const en = await s.put(`${HOST}/attr/RequestedHostTransition`, `${I}.State.Host.Transition.Sideways`);
    expect(en.status).toBe(500);
    expect(en.body.data.exception).toMatch(/InvalidEnumString/);
    const ro = await s.put(`${SYSTEM}/attr/Model`, 'X');
    expect(ro.status).toBe(403);
    expect(ro.body.data.description).toMatch(/PropertyReadOnly/);
  });

  it('attribute and method names are case-insensitive', async () => {
    expect((await s.get(`${SYSTEM}/attr/assettag`)).body.data).toBe('ASSET-0001');
    expect((await s.put(`${SYSTEM}/attr/ASSETTAG`, 'CASE')).status).toBe(200);
    expect((await s.get(SYSTEM)).body.data.AssetTag).toBe('CASE');
    expect((await s.post(`${ROOT}/logging/entry/1/action/delete`, [])).status).toBe(200);
    expect((await s.get(`${ROOT}/logging/entry/1`)).status).toBe(404);
  });
});

describe('listings', () => {
  it('GET / answers 404 "Path not found"', async () => {
    const r = await s.get('/');
    expect(r.status).toBe(404);
    expect(r.body.data.description).toBe('Path not found');
  });

  it('list and enumerate leave out nodes without interfaces, which the trailing-slash listing keeps', async () => {
    expect((await s.get(`${ROOT}/`)).body.data).toContain(`${ROOT}/state`);
    const list = (await s.get(`${ROOT}/list`)).body.data as string[];
    expect(list).toContain(HOST);
    expect(list).not.toContain(`${ROOT}/state`);
    expect(Object.keys((await s.get(`${ROOT}/enumerate`)).body.data)).not.toContain(`${ROOT}/state`);
    expect((await s.get(`${ROOT}/state`)).status).toBe(404);
  });

  it('GET /list includes /, /xyz and /xyz/{ns} themselves', async () => {
    const list = (await s.get('/list')).body.data as string[];
    expect(list.slice(0, 3)).toEqual(['/', '/xyz', ROOT]);
    expect(list).toContain(SYSTEM);
  });
});

describe('writes, creates and deletes', () => {
  it('PUT of a whole object answers 500 whatever the body', async () => {
    const full = (await s.get(SYSTEM)).body.data;
    for (const body of [{ data: full }, { data: {} }, {}]) {
      const r = await s.call('PUT', SYSTEM, { json: body });
      expect(r.status).toBe(500);
      expect(r.body.data.exception).toBe(`AttributeError("Attribute 'parameter_list' not defined.")`);
    }
  });

  it('POST that would create answers 405; DELETE without the Delete interface 403; DELETE of a missing path 404', async () => {
    expect((await s.post(`${ROOT}/inventory/new_thing`, {})).status).toBe(405);
    expect((await s.post(SYSTEM, {})).status).toBe(405);
    const d = await s.del(SYSTEM);
    expect(d.status).toBe(403);
    expect(d.body.data.description).toBe(`The specified resource cannot be removed: '${SYSTEM}'`);
    expect((await s.del(`${ROOT}/nothere`)).status).toBe(404);
  });
});

describe('actions', () => {
  let tftpDir: string;
  let tftp: Awaited<ReturnType<typeof startTftpServer>>;
  beforeAll(async () => {
    tftpDir = await mkdtemp(join(tmpdir(), 'dialect-tftp-'));
    await writeFile(join(tftpDir, '123'), buildImageTarball({ version: 'phosphor-tftp' }));
    tftp = await startTftpServer({ root: tftpDir });
  });
  afterAll(async () => {
    await tftp.close();
    await rm(tftpDir, { recursive: true, force: true });
  });

  it('arguments that need conversion are converted (123 -> "123") and the answer is data: null', async () => {
    const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, [123, `${tftp.host}:${tftp.port}`]);
    expect(r.status).toBe(200);
    expect(r.body.data).toBeNull();
    const versions = (await s.get(`${ROOT}/software/`)).body.data as string[];
    expect(versions.length).toBeGreaterThan(1);
  });

  it('a wrong number of arguments answers 400 "Invalid number of args"', async () => {
    const r = await s.post(`${ROOT}/software/action/DownloadViaTFTP`, ['only-one']);
    expect(r.status).toBe(400);
    expect(r.body.data.description).toBe('Invalid number of args');
  });
});

describe('malformed bodies', () => {
  it('a login whose data holds nested arrays answers 500', async () => {
    const r = await call(sim.url, 'POST', '/login', { json: { data: [['root'], '0penBmc'] } });
    expect(r.status).toBe(500);
    expect(r.body.data.exception).toBe("TypeError('getspnam() argument must be str, not list')");
  });

  it('a PUT whose body has no data answers 500', async () => {
    const r = await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { json: { value: 'x' } });
    expect(r.status).toBe(500);
  });

  it('a body that is not UTF-8 or not JSON answers 400 with the Python exception text', async () => {
    const bad = await s.call('PUT', `${SYSTEM}/attr/AssetTag`, {
      raw: Buffer.from([0x7b, 0x22, 0x64, 0xff, 0x22]),
      contentType: 'application/json',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.data.description).toBe("'utf-8' codec can't decode byte 0xff in position 3: invalid start byte");
    const notJson = await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: 'data=x', contentType: 'application/json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.data.description).toBe('Expecting value: line 1 column 1 (char 0)');
    const list = await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { raw: '[1, "a", true]', contentType: 'application/json' });
    expect(list.body.data.description).toBe("Expecting request format { 'data': <value> }, got '[1, 'a', True]'");
  });

  it('the content type must be exactly application/json', async () => {
    const r = await s.call('PUT', `${SYSTEM}/attr/AssetTag`, { json: { data: 'x' }, contentType: 'application/json; charset=utf-8' });
    expect(r.status).toBe(415);
    expect(r.body.data.description).toBe("Expecting content type 'application/json', got 'application/json; charset=utf-8'");
  });
});

describe('uploads', () => {
  it('a duplicate upload answers 400 after the (shortened) polling', async () => {
    const image = buildImageTarball({ version: 'phosphor-dup' });
    expect((await s.call('POST', '/upload/image', { raw: image, contentType: octet })).status).toBe(200);
    const again = await s.call('POST', '/upload/image', { raw: image, contentType: octet });
    expect(again.status).toBe(400);
    expect(again.body.data.description).toBe('Version already exists or failed to be extracted');
  });
});

describe('events', () => {
  it('InterfacesAdded: path is the new object; a path filter matches the emitting path (the ObjectManager) exactly', async () => {
    const byManager = await subscribe(sim.url, s.cookie, { paths: [`${ROOT}/software`] });
    const up = await s.call('POST', '/upload/image', { raw: buildImageTarball({ version: 'phosphor-ia' }), contentType: octet });
    const [ia] = await byManager.waitFor(1);
    expect(ia.event).toBe('InterfacesAdded');
    expect(ia.path).toBe(`${ROOT}/software/${up.body.data}`);
    expect(ia.interfaces[`${I}.Software.Version`].Version).toBe('phosphor-ia');
    byManager.close();
    const byObject = await subscribe(sim.url, s.cookie, { paths: [SYSTEM] });
    await s.put(`${SYSTEM}/attr/AssetTag`, 'EXACT');
    await s.put(`${ROOT}/inventory/system/chassis/attr/PrettyName`, 'ignored').catch(() => undefined);
    const [pc] = await byObject.waitFor(1);
    expect(pc).toEqual({
      event: 'PropertiesChanged',
      path: SYSTEM,
      interface: `${I}.Inventory.Decorator.AssetTag`,
      properties: { AssetTag: 'EXACT' },
    });
    byObject.close();
  });

  it('events carry booleans as 1/0 and arrive in order; paths and interfaces are ANDed', async () => {
    const sub = await subscribe(sim.url, s.cookie, { paths: [LED, SYSTEM], interfaces: [`${I}.Led.Group`] });
    for (const v of [true, false, true]) await s.put(`${LED}/attr/Asserted`, v);
    await s.put(`${SYSTEM}/attr/AssetTag`, 'NOT-AN-LED');
    const msgs = await sub.waitFor(3);
    await sleep(80);
    expect(msgs.map((m) => m.properties.Asserted)).toEqual([1, 0, 1]);
    sub.close();
  });

  it('a bad filter closes that socket without a reason; without a session the socket opens and is closed at once', async () => {
    const bad = await subscribe(sim.url, s.cookie, '{"paths": "/not a path"}');
    expect(await bad.closed).toEqual({ code: 1000, reason: '' });
    const anon = openSocket(sim.url);
    const opened = new Promise<boolean>((resolve) => {
      anon.on('open', () => resolve(true));
      anon.on('unexpected-response', () => resolve(false));
    });
    const closed = new Promise<number>((resolve) => anon.on('close', (code) => resolve(code)));
    expect(await opened).toBe(true);
    expect(await closed).toBe(1000);
  });
});
