import { afterEach, assert, describe, expect, test } from 'vitest';
import { BmcClient, retryDelayMs, type ClientOptions } from '../../client/http.js';
import { InvalidRequestError, LoginRefusedError, TargetTimeoutError } from '../../client/errors.js';
import { EvidenceLog } from '../../client/evidence.js';
import { requestTarget } from '../../client/transport.js';
import { envelope, sendJson, startHttps, type Handler, type SeenRequest, type TestServer } from './servers.js';

const USER = 'root';
const PASSWORD = 'S3cret-Pa55word';

const open: { servers: TestServer[]; clients: BmcClient[] } = { servers: [], clients: [] };

afterEach(async () => {
  await Promise.all(open.clients.splice(0).map((c) => c.close()));
  await Promise.all(open.servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<TestServer> {
  const s = await startHttps(handler);
  open.servers.push(s);
  return s;
}

function client(server: TestServer, extra: Partial<ClientOptions> = {}): BmcClient {
  const c = new BmcClient({ baseUrl: server.url, user: USER, password: PASSWORD, insecure: true, ...extra });
  open.clients.push(c);
  return c;
}

function loginBody(req: SeenRequest): unknown {
  return JSON.parse(req.body.toString('utf8')) as unknown;
}

/** A fake target that hands out numbered sessions under an unusual cookie name. */
function sessionServer(opts: { cookieName?: string; xsrf?: boolean } = {}) {
  const name = opts.cookieName ?? 'Weird_Session-Name';
  let n = 0;
  const valid = new Set<string>();
  const handler: Handler = (req, res) => {
    if (req.url === '/login') {
      const body = loginBody(req) as { data?: unknown[] };
      if (!Array.isArray(body.data) || body.data[1] !== PASSWORD) return sendJson(res, 401, envelope(401, { description: 'bad' }));
      const sid = `session-value-${++n}-abcdef`;
      valid.add(sid);
      const cookies = [`${name}=${sid}; Path=/; Secure; HttpOnly`];
      if (opts.xsrf) cookies.push(`XSRF-TOKEN=xsrf-token-${n}-123456; Path=/; Secure`);
      return sendJson(res, 200, { ...envelope(200, 'logged in'), token: `login-token-${n}-zyxwvu` }, { 'set-cookie': cookies });
    }
    const cookie = req.headers.cookie ?? '';
    const sid = new RegExp(`${name}=([^;]+)`).exec(cookie)?.[1];
    if (!sid || !valid.has(sid)) return sendJson(res, 401, envelope(401, { description: 'login first' }));
    sendJson(res, 200, envelope(200, { seen: req.url }));
  };
  return { handler, valid, logins: () => n };
}

describe('sessions', () => {
  test('keeps any cookie name and sends it back on later requests', async () => {
    const fake = sessionServer({ cookieName: 'BMC_odd.Name' });
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    const res = await c.get('/xyz/thing');
    expect(res.status).toBe(200);
    expect(s.requests[1]?.headers.cookie).toBe('BMC_odd.Name=session-value-1-abcdef');
    expect(c.authToken).toBe('login-token-1-zyxwvu');
    expect(c.loginForm).toBe('data-array');
  });

  test('keeps a cookie whose Domain does not match the address used', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/login')
        return sendJson(res, 200, envelope(200, null), { 'set-cookie': 'sid=abcdefgh123; Domain=bmc.example.com; Path=/' });
      sendJson(res, 200, envelope(200, req.headers.cookie ?? null));
    });
    const c = client(s);
    await c.login();
    expect((await c.get('/x')).json).toMatchObject({ data: 'sid=abcdefgh123' });
  });

  test('echoes XSRF-TOKEN as X-XSRF-TOKEN on non-GET requests only', async () => {
    const fake = sessionServer({ xsrf: true });
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    await c.get('/a');
    await c.put('/a/attr/B', 1);
    await c.post('/a/action/C', []);
    await c.delete('/a');
    const [, get, put, post, del] = s.requests;
    expect(get?.headers['x-xsrf-token']).toBeUndefined();
    for (const r of [put, post, del]) expect(r?.headers['x-xsrf-token']).toBe('xsrf-token-1-123456');
    expect(c.xsrfToken()).toBe('xsrf-token-1-123456');
    expect(c.cookieHeader()).toContain('XSRF-TOKEN=xsrf-token-1-123456');
  });

  test('login sends the spec body and throws a plain LoginRefusedError when refused', async () => {
    const s = await serve((_req, res) => sendJson(res, 401, envelope(401, { description: 'no' })));
    const c = client(s);
    const err = await c.login().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginRefusedError);
    expect((err as Error).message).toBe('Login as root was refused (401 Unauthorized).');
    expect(loginBody(s.requests[0] as SeenRequest)).toEqual({ data: [USER, PASSWORD] });
    expect(s.requests).toHaveLength(1); // a 401 is about credentials: no fallback attempt
  });

  test('falls back to {username, password} when the spec body is rejected as malformed', async () => {
    const s = await serve((req, res) => {
      const body = loginBody(req) as Record<string, unknown>;
      if ('username' in body) return sendJson(res, 200, envelope(200, null), { 'set-cookie': 'SESSION=fallback-session-1' });
      sendJson(res, 400, envelope(400, { description: 'bad body' }));
    });
    const c = client(s);
    await c.login();
    expect(c.loginForm).toBe('username-password');
    expect(c.cookieHeader()).toBe('SESSION=fallback-session-1');
  });

  test('tryLogin returns a refusal without replacing the stored session', async () => {
    const fake = sessionServer();
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    const before = c.cookieHeader();
    const res = await c.tryLogin({ data: [USER, 'wrong'] });
    expect(res.status).toBe(401);
    expect(c.cookieHeader()).toBe(before);
    expect(s.requests[1]?.headers.cookie).toBeUndefined(); // logins carry no old credentials
  });

  test('re-logs in once on a 401 and retries', async () => {
    const fake = sessionServer();
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    fake.valid.clear(); // the target forgot the session (evicted, expired)
    const res = await c.get('/xyz/a');
    expect(res.status).toBe(200);
    expect(fake.logins()).toBe(2);
    expect(s.requests.map((r) => r.url)).toEqual(['/login', '/xyz/a', '/login', '/xyz/a']);
  });

  test('concurrent 401s share one re-login', async () => {
    const fake = sessionServer();
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    fake.valid.clear();
    const all = await Promise.all([1, 2, 3, 4].map((i) => c.get(`/p${i}`)));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(fake.logins()).toBe(2);
  });

  test('does not loop: a second 401 is returned as it is', async () => {
    let logins = 0;
    const s = await serve((req, res) => {
      if (req.url === '/login') {
        logins++;
        return sendJson(res, 200, envelope(200, null), { 'set-cookie': `sid=s${logins}-longvalue` });
      }
      sendJson(res, 401, envelope(401, { description: 'never' }));
    });
    const c = client(s);
    await c.login();
    const res = await c.get('/xyz/a');
    expect(res.status).toBe(401);
    expect(logins).toBe(2);
    expect(s.requests.filter((r) => r.url === '/xyz/a')).toHaveLength(2);
    const noRetry = await c.get('/xyz/a', { relogin: false });
    expect(noRetry.status).toBe(401);
    expect(logins).toBe(2);
  });

  test('auth:false sends no credentials at all', async () => {
    const fake = sessionServer({ xsrf: true });
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    const res = await c.post('/xyz/a/action/B', [], { auth: false });
    expect(res.status).toBe(401);
    const seen = s.requests[1] as SeenRequest;
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-xsrf-token']).toBeUndefined();
    expect(fake.logins()).toBe(1); // no re-login for a deliberately unauthenticated request
  });

  test('fork starts with an empty jar; exported cookies carry the session over', async () => {
    const fake = sessionServer();
    const s = await serve(fake.handler);
    const c = client(s);
    await c.login();
    const forked = c.fork();
    open.clients.push(forked);
    expect(forked.cookieHeader()).toBe('');
    const shared = new BmcClient({ baseUrl: s.url, user: USER, password: PASSWORD, insecure: true, cookies: c.exportCookies() });
    open.clients.push(shared);
    expect((await shared.get('/x', { relogin: false })).status).toBe(200);
  });

  test('logout posts {"data": []} and keeps the cookies so their refusal can be shown', async () => {
    const fake = sessionServer();
    const s = await serve((req, res) => {
      if (req.url === '/logout') {
        fake.valid.clear();
        return sendJson(res, 200, envelope(200, null));
      }
      return fake.handler(req, res);
    });
    const c = client(s);
    await c.login();
    await c.logout();
    expect(loginBody(s.requests[1] as SeenRequest)).toEqual({ data: [] });
    expect((await c.get('/x', { relogin: false })).status).toBe(401);
  });
});

describe('request format', () => {
  test('exact Content-Type and Accept, {"data": …} bodies, octet-stream uploads', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, envelope(200, 'ok')));
    const c = client(s);
    await c.put('/xyz/a/attr/B', 'v');
    await c.upload(Buffer.from([0, 1, 2, 255]));
    await c.upload(Buffer.from('img'), 'my image.tar');
    await c.get('/xyz/a');
    expect(s.requests).toHaveLength(4);
    const [put, post, putImage, get] = s.requests;
    assert(put && post && putImage && get);
    expect(put.headers['content-type']).toBe('application/json');
    expect(put.headers.accept).toBe('application/json');
    expect(put.body.toString()).toBe('{"data":"v"}');
    expect(post.method).toBe('POST');
    expect(post.url).toBe('/upload/image');
    expect(post.headers['content-type']).toBe('application/octet-stream');
    expect([...post.body]).toEqual([0, 1, 2, 255]);
    expect(putImage.method).toBe('PUT');
    expect(putImage.url).toBe('/upload/image/my%20image.tar');
    expect(get.headers['content-type']).toBeUndefined();
    expect(get.headers.accept).toBe('application/json');
  });

  test('sends the path verbatim; only bytes illegal in a request line are encoded', async () => {
    const s = await serve((_req, res) => sendJson(res, 404, envelope(404, { description: 'x' })));
    const c = client(s);
    await c.get('/xyz/../a//b/./c?x=%zz&y=[1]');
    await c.get('/with space/é');
    await c.request('GET', 'no-slash');
    expect(s.requests.map((r) => r.url)).toEqual(['/xyz/../a//b/./c?x=%zz&y=[1]', '/with%20space/%C3%A9', '/no-slash']);
  });

  test('raw bodies with an explicit or no content type, custom methods', async () => {
    const s = await serve((_req, res) => sendJson(res, 400, envelope(400, { description: 'bad' })));
    const c = client(s);
    const res = await c.request('PATCH', '/xyz/a', { body: '{"data":', contentType: 'text/plain; charset=latin1' });
    await c.request('POST', '/xyz/a', { body: 'x' });
    expect(res.status).toBe(400);
    expect(s.requests[0]?.headers['content-type']).toBe('text/plain; charset=latin1');
    expect(s.requests[0]?.body.toString()).toBe('{"data":');
    expect(s.requests[1]?.headers['content-type']).toBeUndefined();
  });

  test('status line keeps the reason phrase as received', async () => {
    const s = await serve((req, res) => {
      res.statusMessage = req.url === '/odd' ? 'Quite Fine' : '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const c = client(s);
    expect((await c.get('/odd')).statusLine).toBe('200 Quite Fine');
    expect((await c.get('/plain')).statusLine).toBe('200 OK');
  });

  test('parses losslessly: integers beyond 2^53 round-trip as bigint', async () => {
    const s = await serve((req, res) => {
      if (req.method === 'PUT') return sendJson(res, 200, req.body.toString());
      sendJson(res, 200, '{"data": {"Big": 9007199254740993, "Small": 42, "Float": 1.5}, "message": "200 OK", "status": "ok"}');
    });
    const c = client(s);
    const got = await c.get('/xyz/big');
    const data = (got.json as { data: Record<string, unknown> }).data;
    expect(data.Big).toBe(9007199254740993n);
    expect(data.Small).toBe(42);
    expect(data.Float).toBe(1.5);
    const echoed = await c.put('/xyz/big/attr/Big', data.Big);
    expect(s.requests[1]?.body.toString()).toBe('{"data":9007199254740993}');
    expect((echoed.json as { data: unknown }).data).toBe(9007199254740993n);
  });

  test('reports non-JSON bodies with jsonError and empty bodies as undefined', async () => {
    const s = await serve((req, res) => {
      res.writeHead(req.url === '/html' ? 500 : 401, { 'content-type': 'text/html' });
      res.end(req.url === '/html' ? '<html>oops</html>' : '');
    });
    const c = client(s);
    const html = await c.get('/html');
    expect(html.json).toBeUndefined();
    expect(html.jsonError).toBeTruthy();
    expect(html.text).toBe('<html>oops</html>');
    const empty = await c.get('/empty', { relogin: false });
    expect(empty.json).toBeUndefined();
    expect(empty.jsonError).toBeUndefined();
  });
});

describe('limits', () => {
  test('twenty requests in flight at once warn of no listener leak (they share the run-wide abort signal)', async () => {
    const s = await serve((_req, res) => {
      setTimeout(() => sendJson(res, 200, envelope(200, null)), 50);
    });
    const c = client(s, { connections: 20 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => c.get(`/xyz/${i}`)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });

  test('a per-request timeout gives a plain TargetTimeoutError quickly', async () => {
    const s = await serve(() => undefined); // never answers
    const c = client(s, { timeoutMs: 30_000 });
    const t0 = performance.now();
    const err = await c.get('/xyz/slow', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(err).toBeInstanceOf(TargetTimeoutError);
    expect((err as Error).message).toBe('The target did not answer GET /xyz/slow within 200 ms.');
  });

  test('a body that stalls also times out', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data":');
    });
    const c = client(s, { timeoutMs: 300 });
    await expect(c.get('/xyz/stall')).rejects.toBeInstanceOf(TargetTimeoutError);
  });

  test('retries a 503 after Retry-After, then succeeds', async () => {
    let n = 0;
    const s = await serve((_req, res) => {
      if (++n <= 2) return sendJson(res, 503, envelope(503, { description: 'busy' }), { 'retry-after': '0' });
      sendJson(res, 200, envelope(200, 'done'));
    });
    const c = client(s);
    const res = await c.upload(Buffer.from('x'));
    expect(res.status).toBe(200);
    expect(s.requests).toHaveLength(3);
  });

  test('503 retries are bounded', async () => {
    const s = await serve((_req, res) => sendJson(res, 503, envelope(503, { description: 'busy' }), { 'retry-after': '0' }));
    const c = client(s, { max503Retries: 2 });
    expect((await c.get('/x')).status).toBe(503);
    expect(s.requests).toHaveLength(3);
    expect((await c.get('/x', { max503Retries: 0 })).status).toBe(503);
    expect(s.requests).toHaveLength(4);
  });

  test('retry delay honours seconds and HTTP dates, capped, else backs off', () => {
    expect(retryDelayMs('2', 0)).toBe(2000);
    expect(retryDelayMs('3600', 0)).toBe(30_000);
    const soon = new Date(Date.now() + 5_000).toUTCString();
    expect(retryDelayMs(soon, 0)).toBeGreaterThan(3_000);
    expect(retryDelayMs(soon, 0)).toBeLessThanOrEqual(5_000);
    expect(retryDelayMs('Thu, 01 Jan 1970 00:00:00 GMT', 0)).toBe(0);
    expect(retryDelayMs(undefined, 0)).toBe(500);
    expect(retryDelayMs('garbage', 2)).toBe(2000);
    expect(retryDelayMs(undefined, 20)).toBe(8000);
  });

  test('maxRequestsPerSecond spaces requests, also across forks', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, envelope(200, null)));
    const c = client(s, { maxRequestsPerSecond: 20 });
    const f = c.fork();
    open.clients.push(f);
    // Connections opened first: a handshake would delay the first arrival and shorten the span.
    await Promise.all([c.get('/warm'), f.get('/warm')]);
    const from = s.requests.length;
    await Promise.all([c.get('/1'), c.get('/2'), f.get('/3'), c.get('/4'), f.get('/5')]);
    const times = s.requests
      .slice(from)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    const span = (times[times.length - 1] as number) - (times[0] as number);
    // 4 gaps of 50 ms; a busy machine may deliver the first late, never all early (unspaced: ~0 ms).
    expect(span).toBeGreaterThanOrEqual(150);
  });
});

describe('evidence', () => {
  test('records exchanges without passwords, cookies or tokens', async () => {
    const fake = sessionServer({ xsrf: true });
    const s = await serve(async (req, res) => {
      if (req.url === '/echo') return sendJson(res, 200, envelope(200, { password: PASSWORD, note: `pw is ${PASSWORD}` }));
      return fake.handler(req, res);
    });
    const evidence = new EvidenceLog();
    const c = client(s, { evidence });
    await c.login();
    await c.put('/xyz/user/attr/Password', PASSWORD);
    await c.get('/echo');
    await c.tryLogin({ username: USER, password: PASSWORD });
    const text = JSON.stringify(evidence.entries());
    for (const secret of [PASSWORD, 'session-value-1-abcdef', 'xsrf-token-1-123456', 'login-token-1-zyxwvu']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('***');
    expect(text).toContain('<redacted>');
    const first = evidence.entries()[0];
    expect(first?.url).toBe('/login');
    expect(first?.requestBody).toBe('{"data":["root","***"]}');
    expect(first?.statusLine).toBe('200 OK');
  });

  test('a cookie value too short to be a secret (IsAuthenticated=true) is not masked; a session cookie is', async () => {
    const s = await serve(async (_req, res) => sendJson(res, 200, envelope(200, { enabled: true, id: 'session-value-9-abcdef' })));
    const evidence = new EvidenceLog();
    const c = client(s, { evidence });
    for (const value of ['true', 'session-value-9-abcdef']) c.redactCookie(value);
    await c.get('/x', { auth: false });
    const body = evidence.entries()[0]?.responseBody ?? '';
    expect(body).toContain('"enabled":true');
    expect(body).not.toContain('session-value-9-abcdef');
  });

  test('records network failures with their message', async () => {
    const s = await serve(() => undefined);
    const evidence = new EvidenceLog();
    const c = client(s, { evidence, timeoutMs: 100 });
    await c.get('/x').catch(() => undefined);
    expect(evidence.entries()[0]?.error).toMatch(/did not answer GET \/x within 100 ms/);
  });
});

describe('requests that cannot be sent', () => {
  test('are refused before reaching the pool, which stays usable, and a GET with a body keeps the connection', async () => {
    const s = await serve((req, res) => sendJson(res, 200, envelope(200, req.method)));
    const c = client(s, { connections: 2, timeoutMs: 5_000 });
    for (let i = 0; i < 8; i++) {
      await expect(c.request('G ET', '/x', { auth: false })).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(c.request('PUT', '/x', { auth: false, body: '{}', contentType: 'application/json\r\nX: y' })).rejects.toThrow(
        /control characters/,
      );
    }
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await c.request('GET', '/x', { auth: false, body: '{"data": 1}', contentType: 'application/json' });
      expect(res.status).toBe(200);
    }
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(s.requests.length).toBe(5);
  });
});

describe('requestTarget', () => {
  test('percent-encodes controls, space, DEL and non-ASCII as their UTF-8 bytes, a lone surrogate as U+FFFD, and nothing else', () => {
    const bytes = (ch: string) => [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    for (const ch of ['\u0000', '\t', ' ', '\u007f', 'é', '✓', '😀', '\ud800', '\udfff']) {
      expect(requestTarget('', `/a${ch}b`), JSON.stringify(ch)).toBe(`/a${bytes(ch)}b`);
    }
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(requestTarget('/p', printable)).toBe(`/p/${printable}`);
  });
});
