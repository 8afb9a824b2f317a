import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { buildImageTarball } from '../../simulator/image-archive.js';
import { call, login, openSocket, ROOT, subscribe } from './helpers.js';

/** The HTTP status of a WebSocket handshake on /subscribe (101 when it opens). */
async function handshakeStatus(url: string, cookie?: string): Promise<number> {
  const ws = cookie ? openSocket(url, cookie) : openSocket(url);
  const status = await new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => resolve(101));
    ws.on('error', () => undefined);
  });
  ws.terminate();
  return status;
}

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

function expectEnvelope(r: { status: number; text: string; body: any; headers: Record<string, unknown> }): void {
  expect(r.headers['content-type']).toBe('application/json');
  expect(Object.keys(r.body).sort()).toEqual(['data', 'message', 'status']);
  expect(r.body.message).toMatch(new RegExp(`^${r.status} `));
  expect(r.body.status).toBe(r.status < 400 ? 'ok' : 'error');
  if (r.status >= 400) expect(typeof r.body.data.description).toBe('string');
}

describe('login and logout', () => {
  it('is served over https on 127.0.0.1', () => {
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('login sets a secure session cookie and answers an ok envelope', async () => {
    const r = await call(sim.url, 'POST', '/login', { json: { data: ['root', '0penBmc'] } });
    expect(r.status).toBe(200);
    expectEnvelope(r);
    expect(r.body).toEqual({ data: null, message: '200 OK', status: 'ok' });
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toMatch(/^sid=[0-9a-f]{64}; Path=\/; Secure; HttpOnly; SameSite=Strict$/);
  });

  it('login accepts a charset parameter on the content type', async () => {
    const r = await call(sim.url, 'POST', '/login', {
      json: { data: ['root', '0penBmc'] },
      contentType: 'application/json; charset=utf-8',
    });
    expect(r.status).toBe(200);
  });

  it.each([
    ['wrong password', { data: ['root', 'nope'] }, 401],
    ['unknown user', { data: ['admin', '0penBmc'] }, 401],
    ['one element', { data: ['root'] }, 400],
    ['not strings', { data: ['root', 1] }, 400],
    ['object form', { username: 'root', password: '0penBmc' }, 400],
    ['bare array', ['root', '0penBmc'], 400],
  ])('login refuses %s without a cookie', async (_name, body, status) => {
    const r = await call(sim.url, 'POST', '/login', { json: body });
    expect(r.status).toBe(status);
    expectEnvelope(r);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('login refuses malformed JSON and wrong content types', async () => {
    const bad = await call(sim.url, 'POST', '/login', { raw: '{"data": [', contentType: 'application/json' });
    expect(bad.status).toBe(400);
    expectEnvelope(bad);
    const form = await call(sim.url, 'POST', '/login', { raw: 'user=root', contentType: 'text/plain' });
    expect(form.status).toBe(415);
    expectEnvelope(form);
    const get = await call(sim.url, 'GET', '/login');
    expect(get.status).toBe(405);
  });

  it('logout ends the session server-side', async () => {
    const cookie = await login(sim.url);
    expect((await call(sim.url, 'GET', `${ROOT}/inventory/system`, { cookie })).status).toBe(200);
    const out = await call(sim.url, 'POST', '/logout', { cookie, json: { data: [] } });
    expect(out.status).toBe(200);
    expectEnvelope(out);
    const after = await call(sim.url, 'GET', `${ROOT}/inventory/system`, { cookie });
    expect(after.status).toBe(401);
    expectEnvelope(after);
  });

  it('an unknown or forged cookie is refused', async () => {
    const r = await call(sim.url, 'GET', '/', { cookie: `sid=${'0'.repeat(64)}` });
    expect(r.status).toBe(401);
  });
});

describe('requests without a session', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/'],
    ['GET', `${ROOT}/inventory/system`],
    ['GET', `${ROOT}/inventory/system/attr/AssetTag`],
    ['GET', `${ROOT}/`],
    ['GET', `${ROOT}/list`],
    ['GET', `${ROOT}/enumerate`],
    ['GET', `${ROOT}/does/not/exist`],
    ['PUT', `${ROOT}/inventory/system/attr/AssetTag`, { data: 'x' }],
    ['PUT', `${ROOT}/inventory/system`, { data: {} }],
    ['POST', `${ROOT}/software/action/Reset`, { data: [] }],
    ['POST', `${ROOT}/new/thing`, { data: {} }],
    ['DELETE', `${ROOT}/logging/entry/1`],
    ['PATCH', `${ROOT}/inventory/system`, { data: {} }],
    ['POST', '/logout', { data: [] }],
  ];

  it.each(routes)('%s %s is refused with 401 and leaks nothing', async (method, path, json) => {
    const r = await call(sim.url, method, path, { json });
    expect(r.status).toBe(401);
    expectEnvelope(r);
    expect(Object.keys(r.body.data)).toEqual(['description']);
    expect(r.text).not.toContain('/xyz/');
    expect(r.text).not.toContain('ASSET');
  });

  it('uploads are refused and register nothing', async () => {
    const image = buildImageTarball({ version: 'unauthenticated-upload' });
    for (const [method, path] of [
      ['POST', '/upload/image'],
      ['PUT', '/upload/image/unauth.tar'],
    ] as const) {
      const r = await call(sim.url, method, path, { raw: image, contentType: 'application/octet-stream' });
      expect(r.status).toBe(401);
      expectEnvelope(r);
    }
    const cookie = await login(sim.url);
    const list = await call(sim.url, 'GET', `${ROOT}/software/`, { cookie });
    expect(list.body.data).toHaveLength(1); // only the running image
  });

  it('the WebSocket handshake is refused with 401', async () => {
    expect(await handshakeStatus(sim.url)).toBe(401);
  });

  it('the WebSocket handshake is refused after logout', async () => {
    const cookie = await login(sim.url);
    await call(sim.url, 'POST', '/logout', { cookie, json: { data: [] } });
    expect(await handshakeStatus(sim.url, cookie)).toBe(401);
  });

  it("logout closes the session's open event sockets", async () => {
    const cookie = await login(sim.url);
    const sub = await subscribe(sim.url, cookie, {});
    await call(sim.url, 'POST', '/logout', { cookie, json: { data: [] } });
    const closed = await sub.closed;
    expect(closed.code).toBe(1008);
  });
});

describe('envelope on every kind of response', () => {
  it('success and error responses carry data, message and status', async () => {
    const cookie = await login(sim.url);
    const cases: [string, string, unknown?][] = [
      ['GET', '/'],
      ['GET', `${ROOT}/inventory/system`],
      ['GET', `${ROOT}/nope`],
      ['GET', `${ROOT}/inventory/system/attr/Nope`],
      ['PUT', `${ROOT}/inventory/system/attr/Model`, { data: 'x' }],
      ['POST', `${ROOT}/inventory/system`, { data: {} }],
      ['PATCH', `${ROOT}/inventory/system`, { data: {} }],
      ['OPTIONS', `${ROOT}/inventory/system`],
      ['GET', '/subscribe'],
    ];
    const seen = new Set<number>();
    for (const [method, path, json] of cases) {
      const r = await call(sim.url, method, path, { cookie, json });
      expectEnvelope(r);
      seen.add(r.status);
    }
    expect([...seen].sort()).toEqual([200, 400, 403, 404, 405]);
  });

  it('a request the HTTP parser rejects still gets an envelope', async () => {
    const { connect } = await import('node:tls');
    const text = await new Promise<string>((resolve, reject) => {
      const port = sim.port;
      const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        s.write('GET /\x01bad HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(text).toContain('"message":"400 Bad Request"');
    expect(text).toContain('"status":"error"');
  });
});
