/** Authentication: login, logout, and refusal of every kind of request made without a session. */
import { EventSubscriber } from '../client/subscriber.js';
import { buildImage, corruptImage } from '../client/image.js';
import type { BmcClient, BmcResponse } from '../client/http.js';
import { check, type CheckContext } from './support/check.js';
import { describeResponse, ensure, envelopeOf, expectOk, expectRefused, setDifference } from './support/assert.js';
import { children, getObject } from './support/tree.js';

const anonymous = { auth: false, relogin: false } as const;

/** A session of its own, so logging out never touches the run's shared session. */
async function ownSession(t: CheckContext): Promise<BmcClient> {
  const c = t.client.fork();
  t.cleanup(() => c.close());
  return c;
}

function cookieNames(res: BmcResponse): string[] {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.map((c) => c.split('=')[0]!.trim());
}

check('EP-1', 'login with {"data": [user, password]} answers 200 ok, sets a cookie, and the cookie is accepted', async (t) => {
  const c = await ownSession(t);
  const res = await c.tryLogin({ data: [t.cfg.user, t.cfg.password] }, { store: true });
  expectOk(res, 'POST /login');
  const names = cookieNames(res);
  ensure(names.length > 0, `POST /login answered ${describeResponse(res)} but set no cookie`);
  await getObject(c, `${t.root}/inventory/system`);
  t.observe('login response data', envelopeOf(res)?.data, 'RULE-9');
  await c.logout();
});

check('EP-2', 'logout with {"data": []} ends the session: its cookie is refused afterwards', async (t) => {
  const c = await ownSession(t);
  await c.login();
  await children(c, t.root);
  const res = await c.logout();
  expectOk(res, 'POST /logout');
  t.observe('logout response data', envelopeOf(res)?.data, 'RULE-9');
  const after = await c.get(`${t.root}/`, { relogin: false });
  expectRefused(after, 'GET after logout with the old cookie', t);
});

check(['AUTH-1', 'AUTH-5'], 'read routes without credentials are refused and leak nothing', async (t) => {
  const sys = `${t.root}/inventory/system`;
  const routes = ['/', `${t.root}/`, sys, `${sys}/attr/Model`, `${t.root}/list`, `${t.root}/enumerate`, `${t.root}/inventory/`];
  const statuses: Record<string, number> = {};
  for (const path of routes) {
    const res = await t.client.get(path, anonymous);
    statuses[`GET ${path}`] = res.status;
    expectRefused(res, `GET ${path} without credentials`, t, path);
  }
  t.observe('status of refused reads', statuses, 'AUTH-6');
});

check(['AUTH-1', 'AUTH-5'], 'write, action and delete routes without credentials are refused and leak nothing', async (t) => {
  const sys = `${t.root}/inventory/system`;
  // Values written are the current ones, so even a target that wrongly accepts is left unchanged.
  const current = await getObject(t.client, sys);
  const model = current.Model;
  const attempts: Array<[string, () => Promise<BmcResponse>]> = [
    [`PUT ${sys}/attr/Model`, () => t.client.put(`${sys}/attr/Model`, model, anonymous)],
    [`PUT ${sys}`, () => t.client.put(sys, current, anonymous)],
    [`POST ${t.root}/software/action/BmcConformanceProbe`, () => t.client.post(`${t.root}/software/action/BmcConformanceProbe`, [], anonymous)],
    [`DELETE ${t.root}/logging/entry/4294967295`, () => t.client.delete(`${t.root}/logging/entry/4294967295`, anonymous)],
  ];
  const statuses: Record<string, number> = {};
  for (const [what, send] of attempts) {
    const res = await send();
    statuses[what] = res.status;
    expectRefused(res, `${what} without credentials`, t);
  }
  t.observe('status of refused writes', statuses, 'AUTH-6');
}, { profile: 'safe' });

check(['AUTH-2', 'AUTH-5'], 'an upload without credentials is refused before the image is looked at', async (t) => {
  for (const [what, send] of [
    ['POST /upload/image', () => t.client.upload(corruptImage(), undefined, anonymous)],
    ['PUT /upload/image/bmc-conformance-probe', () => t.client.upload(corruptImage(), 'bmc-conformance-probe', anonymous)],
  ] as const) {
    const res = await send();
    expectRefused(res, `${what} without credentials`, t);
    const description = (envelopeOf(res)?.data as { description?: unknown } | undefined)?.description;
    // An extraction error means the image was processed: the credentials were never checked.
    ensure(!(typeof description === 'string' && /extract|already exists/i.test(description)),
      `${what} without credentials was processed as an image: ${describeResponse(res)} ${JSON.stringify(description)}`);
  }
}, { profile: 'safe' });

check(['AUTH-2'], 'a valid image uploaded without credentials is refused and registers no version', async (t) => {
  const before = await children(t.client, `${t.root}/software`);
  const image = await buildImage({ version: `bmc-conformance-noauth-${Date.now()}`, namespace: t.ns });
  const res = await t.client.upload(image, undefined, anonymous);
  expectRefused(res, 'POST /upload/image without credentials', t);
  const added = setDifference(await children(t.client, `${t.root}/software`), before);
  ensure(added.length === 0, `an upload without credentials registered ${added.join(', ')}`);
}, { profile: 'destructive' });

check('AUTH-3', 'a WebSocket /subscribe without a login is refused', async (t) => {
  const outcome = await EventSubscriber.tryOpen(t.client, {}, { auth: false, settleMs: Math.min(t.cfg.quietWindowMs, 2000) });
  if (outcome.kind === 'open') {
    await outcome.subscriber.close();
    ensure(false, 'the handshake without a session succeeded and the socket stayed open');
  }
  t.observe('subscribe without login', outcome.kind === 'refused' ? `handshake refused (${outcome.status ?? 'no status'})` : `closed with code ${outcome.code}`, 'AUTH-6');
});

check('AUTH-4', 'a wrong password, an unknown user or a malformed login body yields no working session', async (t) => {
  const bodies: Array<[string, unknown]> = [
    ['wrong password', { data: [t.cfg.user, `${t.cfg.password}-wrong`] }],
    ['unknown user', { data: ['bmc-conformance-nobody', t.cfg.password] }],
    ['empty password', { data: [t.cfg.user, ''] }],
    ['one element', { data: [t.cfg.user] }],
    ['not an array', { data: t.cfg.user }],
    ['numbers', { data: [1, 2] }],
    ['no data', {}],
  ];
  for (const [what, body] of bodies) {
    const c = await ownSession(t);
    const res = await c.tryLogin(body, { store: true });
    ensure(res.status < 200 || res.status >= 300, `login with ${what} answered ${describeResponse(res)}`);
    const probe = await c.get(`${t.root}/inventory/system`, { relogin: false });
    expectRefused(probe, `GET after a login with ${what}`, t);
  }
});

check('AUTH-6', 'record the cookie, its attributes and any login token', async (t) => {
  const c = await ownSession(t);
  const res = await c.tryLogin({ data: [t.cfg.user, t.cfg.password] }, { store: true });
  expectOk(res, 'POST /login');
  const raw = res.headers['set-cookie'];
  const cookies = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map((cookie) => {
    const [pair, ...attrs] = cookie.split(';');
    return { name: pair!.split('=')[0]!.trim(), attributes: attrs.map((a) => a.trim().split('=')[0]) };
  });
  t.observe('session cookies', cookies);
  const data = envelopeOf(res)?.data;
  t.observe('login returns a token', typeof data === 'object' && data !== null && 'token' in data);
  await c.logout();
});

check('TLS-1', 'the service is served over HTTPS', async (t) => {
  ensure(t.cfg.target.startsWith('https://'), `the target ${t.cfg.target} is not served over HTTPS`);
  expectOk(await t.client.get(`${t.root}/`), `GET ${t.root}/ over TLS`);
});
