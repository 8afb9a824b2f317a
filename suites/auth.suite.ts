/** Authentication: login, logout, and refusal of every kind of request made without a session. */
import { EventSubscriber } from '../client/subscriber.js';
import { buildImage, corruptImage } from '../client/image.js';
import type { BmcClient, BmcResponse } from '../client/http.js';
import { check, type CheckContext } from './support/check.js';
import { stringifyJson } from '../client/json.js';
import { describeResponse, ensure, envelopeOf, expectSuccess, notJudged, setDifference, show } from './support/assert.js';
import { discoverKnowledge, leakIn, type SentRequest } from './support/leak.js';
import { children, getObject, invalidateTreeCache } from './support/tree.js';
import { firstWritePlan, readValue, restore, restoreAfter } from './support/writable.js';
import { Credential } from './support/stateful/credentials.js';
import { sameValue } from '../client/values.js';

const anonymous = { auth: false, relogin: false } as const;

/** A session of its own, so logging out never touches the run's shared session. */
async function ownSession(t: CheckContext): Promise<BmcClient> {
  const c = t.client.fork();
  t.cleanup(() => c.close());
  return c;
}

/**
 * A request without working credentials must be refused (a failure of `refusedBy`) and its refusal
 * must carry nothing of the tree the request did not carry (AUTH-5).
 */
async function judgeRefusal(t: CheckContext, res: BmcResponse, what: string, request: SentRequest, refusedBy: string): Promise<void> {
  const refused = res.status < 200 || res.status >= 300;
  t.judge(refusedBy, refused, `${what}: expected a refusal, got ${describeResponse(res)}`);
  if (!refused) return; // an answer that was not refused is refusedBy's failure, whatever it carries
  const leak = leakIn(res, request, await discoverKnowledge(t.client, t.ns));
  t.judge('AUTH-5', !leak, `${what}: the refusal (${res.status}) carries data of the target: ${leak}`);
}

/** The body a put/post helper sends, for the oracle: what the request carried may come back. */
function sentBody(data: unknown): string {
  return stringifyJson({ data });
}

function cookieNames(res: BmcResponse): string[] {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.map((c) => c.split('=')[0]!.trim());
}

check(
  'EP-1',
  'login with {"data": [user, password]} answers 200 ok, sets a cookie, and the cookie is accepted',
  async (t) => {
    const c = await ownSession(t);
    const res = await c.tryLogin({ data: [t.cfg.user, t.cfg.password] }, { store: true });
    expectSuccess(res, 'POST /login');
    const names = cookieNames(res);
    ensure(names.length > 0, `POST /login answered ${describeResponse(res)} but set no cookie`);
    const sys = `${t.root}/inventory/system`;
    const probe = await c.get(sys, { relogin: false });
    ensure(probe.status === 200, `GET ${sys} with the cookie of the login answered ${describeResponse(probe)}`);
    t.observe('login response data', envelopeOf(res)?.data, 'RULE-9');
    await c.logout();
  },
  { ownSession: true },
);

check(['EP-2', 'AUTH-5'], 'logout with {"data": []} ends the session: its cookie is refused afterwards', async (t) => {
  const c = await ownSession(t);
  await c.login().catch((err: Error) => notJudged(`no session to log out: ${err.message} (see EP-1)`));
  await children(c, t.root);
  const res = await c.logout();
  expectSuccess(res, 'POST /logout');
  t.observe('logout response data', envelopeOf(res)?.data, 'RULE-9');
  const after = await c.get(`${t.root}/`, { relogin: false });
  await judgeRefusal(t, after, 'GET after logout with the old cookie', { path: `${t.root}/` }, 'EP-2');
});

check(['AUTH-1', 'AUTH-5'], 'read routes without credentials are refused and leak nothing', async (t) => {
  const sys = `${t.root}/inventory/system`;
  const routes = ['/', `${t.root}/`, sys, `${sys}/attr/Model`, `${t.root}/list`, `${t.root}/enumerate`, `${t.root}/inventory/`];
  const statuses: Record<string, number> = {};
  for (const path of routes) {
    const res = await t.client.get(path, anonymous);
    statuses[`GET ${path}`] = res.status;
    await judgeRefusal(t, res, `GET ${path} without credentials`, { path }, 'AUTH-1');
  }
  t.observe('status of refused reads', statuses, 'AUTH-6');
});

check(
  ['AUTH-1', 'AUTH-5'],
  'write, action and delete routes without credentials are refused and leak nothing',
  async (t) => {
    const sys = `${t.root}/inventory/system`;
    // Values written are the current ones, so even a target that wrongly accepts is left unchanged.
    const current = await getObject(t.client, sys);
    const model = current.Model;
    const action = `${t.root}/software/action/BmcConformanceProbe`;
    const entry = `${t.root}/logging/entry/4294967295`;
    const attempts: Array<[string, SentRequest, () => Promise<BmcResponse>]> = [
      [
        `PUT ${sys}/attr/Model`,
        { path: `${sys}/attr/Model`, body: sentBody(model) },
        () => t.client.put(`${sys}/attr/Model`, model, anonymous),
      ],
      [`PUT ${sys}`, { path: sys, body: sentBody(current) }, () => t.client.put(sys, current, anonymous)],
      [`POST ${action}`, { path: action, body: sentBody([]) }, () => t.client.post(action, [], anonymous)],
      [`DELETE ${entry}`, { path: entry }, () => t.client.delete(entry, anonymous)],
    ];
    const statuses: Record<string, number> = {};
    for (const [what, request, send] of attempts) {
      const res = await send();
      statuses[what] = res.status;
      await judgeRefusal(t, res, `${what} without credentials`, request, 'AUTH-1');
    }
    t.observe('status of refused writes', statuses, 'AUTH-6');
  },
  { profile: 'safe' },
);

/**
 * One write with each of the credentials that must not authorise it: none, a logged-out session's
 * cookie, a live session's cookie altered. Each is judged only after the same write with a live
 * session was shown to take; a write that took is undone at once.
 */
check(
  ['AUTH-1', 'EP-2', 'AUTH-5'],
  'a write that a session may make is refused without credentials, with a logged-out or a tampered cookie, and changes nothing',
  async (t) => {
    const plan = await firstWritePlan(t);
    restoreAfter(t, plan);
    const { path, name } = plan.attr;
    const attrPath = `${path}/attr/${name}`;
    const objectBody = async (value: unknown): Promise<Record<string, unknown> | undefined> => {
      const map = await getObject(t.client, path).catch(() => undefined);
      return map && Object.hasOwn(map, name) ? { ...map, [name]: value } : undefined;
    };
    // The positive twins: each write, with the run's session, takes (and is taken back).
    const twins: Array<[string, string, () => Promise<unknown>]> = [[`PUT ${attrPath}`, attrPath, async () => plan.next]];
    const whole = await objectBody(plan.next);
    if (whole) twins.push([`PUT ${path}`, path, async () => objectBody(plan.next)]);
    const proven: Array<[string, string, () => Promise<unknown>]> = [];
    for (const twin of twins) {
      const [what, target, body] = twin;
      invalidateTreeCache();
      const res = await t.client.put(target === attrPath ? attrPath : path, await body());
      const took = res.status >= 200 && res.status < 300 && sameValue(await readValue(t, path, name), plan.next);
      if (took) proven.push(twin);
      else t.observe(`${what} with a session did not take`, describeResponse(res));
      await restore(t, plan);
    }
    if (proven.length === 0)
      notJudged(`PUT of ${path} ${name} with the run's session did not take (see EP-8, EP-9): no refusal without it proves anything`);

    // The credentials that must not authorise the write.
    const own = t.client.fork();
    t.cleanup(() => own.close());
    const ended = Credential.fromLogin(await own.login(), own.baseUrl, '$ENDED_COOKIE');
    await own.logout();
    const other = t.client.fork();
    t.cleanup(async () => {
      await other.logout().catch(() => undefined);
      await other.close();
    });
    const tampered = Credential.fromLogin(await other.login(), other.baseUrl, '$COOKIE').tampered('altered');
    // The logged-out cookie last: it tells about logout (EP-2) only where the write checks
    // credentials at all, i.e. where none and an altered one were refused.
    const variants: Array<[string, string, Record<string, string>]> = [
      ['without credentials', 'AUTH-1', {}],
      ['with a live session cookie altered', 'AUTH-1', tampered.headers('PUT')],
      ["with a logged-out session's cookie", 'EP-2', ended.headers('PUT')],
    ];
    const statuses: Record<string, number> = {};
    for (const [what, target, body] of proven) {
      let unchecked: string | undefined;
      for (const [how, requirementId, headers] of variants) {
        if (requirementId === 'EP-2' && unchecked) {
          t.observe(`${what} with a logged-out cookie`, `not judged: the write was taken ${unchecked} (AUTH-1)`, 'AUTH-6');
          continue;
        }
        invalidateTreeCache();
        const sent = await body();
        const res = await t.client.request('PUT', target, { json: { data: sent }, auth: false, relogin: false, headers });
        statuses[`${what} ${how}`] = res.status;
        const after = await readValue(t, path, name);
        const changed = !sameValue(after, plan.original);
        if (changed) await restore(t, plan);
        const refused = res.status < 200 || res.status >= 300;
        if (requirementId === 'AUTH-1' && (!refused || changed)) unchecked ??= how;
        t.judge(
          requirementId,
          refused && !changed,
          `${what} = ${show(plan.next)} ${how} answered ${describeResponse(res)}${changed ? ` and ${name} became ${show(after)} (put back)` : ''}`,
        );
        if (refused) {
          const leak = leakIn(res, { path: target, body: sentBody(sent) }, await discoverKnowledge(t.client, t.ns));
          t.judge('AUTH-5', !leak, `${what} ${how}: the refusal (${res.status}) carries data of the target: ${leak}`);
        }
      }
    }
    t.observe('status of refused writes of a writable', statuses, 'AUTH-6');
  },
  { profile: 'safe' },
);

check(
  ['AUTH-2', 'AUTH-5'],
  'an upload without credentials is refused before the image is looked at',
  async (t) => {
    for (const [what, path, send] of [
      ['POST /upload/image', '/upload/image', () => t.client.upload(corruptImage(), undefined, anonymous)],
      [
        'PUT /upload/image/bmc-conformance-probe',
        '/upload/image/bmc-conformance-probe',
        () => t.client.upload(corruptImage(), 'bmc-conformance-probe', anonymous),
      ],
    ] as const) {
      const res = await send();
      await judgeRefusal(t, res, `${what} without credentials`, { path }, 'AUTH-2');
      const description = (envelopeOf(res)?.data as { description?: unknown } | undefined)?.description;
      // An extraction error means the image was processed: the credentials were never checked.
      t.judge(
        'AUTH-2',
        !(typeof description === 'string' && /extract|already exists/i.test(description)),
        `${what} without credentials was processed as an image: ${describeResponse(res)} ${JSON.stringify(description)}`,
      );
    }
  },
  { profile: 'safe' },
);

check(
  ['AUTH-2', 'AUTH-5'],
  'a valid image uploaded without credentials is refused and registers no version',
  async (t) => {
    const before = await children(t.client, `${t.root}/software`);
    const image = await buildImage({ version: `bmc-conformance-noauth-${Date.now()}`, namespace: t.ns });
    const res = await t.client.upload(image, undefined, anonymous);
    await judgeRefusal(t, res, 'POST /upload/image without credentials', { path: '/upload/image' }, 'AUTH-2');
    const added = setDifference(await children(t.client, `${t.root}/software`), before);
    ensure(added.length === 0, `an upload without credentials registered ${added.join(', ')}`);
  },
  { profile: 'destructive' },
);

check('AUTH-3', 'a WebSocket /subscribe without a login is refused', async (t) => {
  const outcome = await EventSubscriber.tryOpen(t.client, {}, { auth: false, settleMs: Math.min(t.cfg.quietWindowMs, 2000) });
  if (outcome.kind === 'open') {
    await outcome.subscriber.close();
    ensure(false, 'the handshake without a session succeeded and the socket stayed open');
  }
  t.observe(
    'subscribe without login',
    outcome.kind === 'refused' ? `handshake refused (${outcome.status ?? 'no status'})` : `closed with code ${outcome.code}`,
    'AUTH-6',
  );
});

check(['AUTH-4', 'AUTH-5'], 'a wrong password, an unknown user or a malformed login body yields no working session', async (t) => {
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
    t.judge('AUTH-4', res.status < 200 || res.status >= 300, `login with ${what} answered ${describeResponse(res)}`);
    const probe = await c.get(`${t.root}/inventory/system`, { relogin: false });
    await judgeRefusal(t, probe, `GET after a login with ${what}`, { path: `${t.root}/inventory/system` }, 'AUTH-4');
  }
});

check('AUTH-6', 'record the cookie, its attributes and any login token', async (t) => {
  const c = await ownSession(t);
  // What the session looks like is recorded whichever login body the target takes (EP-1 judges the spec's).
  const res = await c.login().catch((err: Error) => notJudged(`no login succeeded: ${err.message} (see EP-1)`));
  t.observe('login body taken', c.loginForm);
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
  // Any HTTP answer over the TLS connection will do: what it says is other requirements' concern.
  const res = await t.client.get(`${t.root}/`);
  ensure(res.status > 0, `GET ${t.root}/ over TLS got no HTTP answer`);
});
