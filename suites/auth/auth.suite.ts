/** Authentication: login, logout, and refusal of every kind of request made without a session. */
import { EventSubscriber } from '../../client/subscriber.js';
import { SubscriptionError } from '../../client/errors.js';
import { buildImage, corruptImage } from '../../client/image.js';
import type { BmcClient, BmcResponse } from '../../client/http.js';
import { check, runConfig, type CheckContext } from '../harness/check.js';
import { stringifyJson } from '../../client/json.js';
import { describeResponse, descriptionOf, ensure, envelopeOf, expectSuccess, notJudged, setDifference, show } from '../harness/assert.js';
import { discoverKnowledge, leakIn, type SentRequest } from '../harness/leak.js';
import { children, getObject, invalidateTreeCache } from '../harness/tree.js';
import { firstWritePlan, readValue, restore, restoreAfter } from '../harness/writable.js';
import { Credential, describeOutcome } from '../stateful/credentials.js';
import { sameValue } from '../../client/values.js';
import { AttrWriter, isEventLike, tryGoLive } from '../events/events.js';
import { PRIME_ATTEMPTS } from '../events/engine/prime.js';
import { brief } from '../events/engine/subscription.js';
import { quietSince } from '../harness/pace.js';
import { forbiddenCredentials, headersOf, isRefusal, Tries, type Forbidden } from './forbidden.js';
import {
  deleteSoftwareVersions,
  freshVersion,
  uploadAndTrack,
  uploadProcessed,
  uploadWaitMs,
  waitForNewVersions,
  listedVersions,
} from '../harness/software.js';

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
  const leak = leakIn(res, request, await discoverKnowledge(t.client, t.ns, t.cfg.treeSnapshot));
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

const cfg = runConfig();

/** Checks that upload, wait for versions and delete them: each may wait as long as an upload takes. */
const SLOW = { timeoutMs: cfg.timeoutMs * 6 + 4 * Math.max(cfg.eventTimeoutMs, 15_000) };

/**
 * The versions a request registered: read at once after a refusal (nothing was to be done), and
 * for as long as an upload may take after an answer that says it was done.
 */
async function versionsAfter(t: CheckContext, res: BmcResponse, before: string[]): Promise<string[]> {
  const software = `${t.root}/software`;
  invalidateTreeCache();
  if (isRefusal(res)) return setDifference(await listedVersions(t, software), before);
  return waitForNewVersions(t, software, before, uploadWaitMs(t));
}

/** Deletes at once, with the run's session, versions a request that had to be refused registered. */
async function removeNow(t: CheckContext, paths: string[]): Promise<void> {
  deleteSoftwareVersions(t, paths); // and again after the check, should this fail
  for (const path of paths) await t.client.delete(path).catch(() => undefined);
}

/** A software version of the run's own, uploaded with its session: an instance the check may delete. */
async function ownVersion(t: CheckContext): Promise<string> {
  const { res, added } = await uploadAndTrack(t, { tag: 'auth-own' });
  if (res.status !== 200 || added.length === 0)
    notJudged(
      `no instance of the run's own to remove: its upload answered ${describeResponse(res)}${added.length === 0 ? ' and registered nothing' : ''} (see EP-12, RULE-7)`,
    );
  return added[0]!;
}

async function present(t: CheckContext, path: string): Promise<boolean> {
  invalidateTreeCache();
  return (await t.client.get(path)).status === 200;
}

/** The removals of a version of the run's own that this run has seen work (DELETE, action/Delete). */
const removals: Removal[] = [];

/** Takes a version away with the run's session by a removal seen to work; whether it is gone. */
async function takeAway(t: CheckContext, path: string): Promise<boolean> {
  for (const r of removals) {
    await t.client.request(r.method, r.target(path), r.method === 'POST' ? { json: { data: [] } } : {});
    if (!(await present(t, path))) return true;
  }
  return false;
}

interface Removal {
  method: 'DELETE' | 'POST';
  /** The request target for a version's path. */
  target: (path: string) => string;
}

/**
 * One removal of the run's own version (DELETE, or POST action/Delete) with each credential that
 * must not authorise it; a version removed nonetheless is replaced by a new upload for the next.
 * Then the positive twin, which also cleans up: the same request with the session removes it.
 * Returns why the twin did not remove it, if it did not.
 */
async function removalTries(t: CheckContext, variants: Forbidden[], r: Removal): Promise<string | undefined> {
  let path = await ownVersion(t);
  const body = r.method === 'POST' ? { json: { data: [] } } : {};
  const tries = new Tries(t, `${r.method} ${r.target(path)}`);
  for (const v of variants) {
    if (!tries.judges(v)) continue;
    const target = r.target(path);
    const res = await t.client.request(r.method, target, { ...body, auth: false, relogin: false, headers: headersOf(v, r.method) });
    const gone = !(await present(t, path));
    await tries.judgeHttp(
      v,
      res,
      { path: target, ...(r.method === 'POST' && { body: sentBody([]) }) },
      gone ? `${path} is gone` : undefined,
    );
    if (gone) {
      path = await ownVersion(t);
      tries.what = `${r.method} ${r.target(path)}`;
    }
  }
  t.observe(`status of refused ${r.method === 'DELETE' ? 'DELETEs' : 'Delete actions'} of the run's own version`, tries.statuses, 'AUTH-6');
  const res = await t.client.request(r.method, r.target(path), body);
  const gone = !(await present(t, path));
  if (!isRefusal(res) && gone) {
    if (!removals.includes(r)) removals.push(r);
    return undefined;
  }
  return `${r.method} ${r.target(path)} with the run's session answered ${describeResponse(res)}${gone ? '' : ` and ${path} is still there`}`;
}

/**
 * DownloadViaTFTP of the configured image with each credential that must not authorise it (a
 * version it registered nonetheless is deleted at once), then with the session (the twin).
 * Returns why the twin registered nothing, if it did not.
 */
async function downloadTries(t: CheckContext, variants: Forbidden[], args: [string, string]): Promise<string | undefined> {
  const software = `${t.root}/software`;
  const action = `${software}/action/DownloadViaTFTP`;
  // Every download of the file registers the same version: one left behind would make the next
  // download of the run fail as a duplicate.
  if (removals.length === 0)
    return "DownloadViaTFTP is not tried: no removal of a version of the run's own was seen to work, so the version it registers could not be taken away";
  const tries = new Tries(t, `POST ${action} ${show(args)}`);
  for (const v of variants) {
    if (!tries.judges(v)) continue;
    const before = await listedVersions(t, software);
    const res = await t.client.request('POST', action, {
      json: { data: args },
      auth: false,
      relogin: false,
      headers: headersOf(v, 'POST'),
    });
    const added = await versionsAfter(t, res, before);
    deleteSoftwareVersions(t, added); // should taking it away now fail
    for (const version of added) await takeAway(t, version);
    const change = added.length > 0 ? `it registered ${added.join(', ')} (deleted)` : undefined;
    await tries.judgeHttp(v, res, { path: action, body: sentBody(args) }, change);
  }
  t.observe('status of refused DownloadViaTFTP', tries.statuses, 'AUTH-6');
  const before = await listedVersions(t, software);
  const res = await t.client.post(action, args);
  const added = isRefusal(res) ? [] : await waitForNewVersions(t, software, before, uploadWaitMs(t));
  deleteSoftwareVersions(t, added);
  for (const version of added) await takeAway(t, version);
  if (added.length > 0) return undefined;
  return `DownloadViaTFTP ${show(args)} with the run's session answered ${describeResponse(res)} and registered nothing`;
}

/** A subscription's handshake: an open socket, or a refusal (by status, or by a failed handshake). */
type Socket = { kind: 'open'; sub: EventSubscriber } | { kind: 'refused'; answer: string };

/** Opens /subscribe with exactly these cookies (and the XSRF subprotocol they carry), or none at all. */
async function openSocket(t: CheckContext, cred: Credential | undefined, filter: unknown): Promise<Socket> {
  const client = cred ? cred.client(t.client) : t.client;
  if (cred) t.cleanup(() => client.close());
  try {
    const outcome = await EventSubscriber.tryOpen(client, filter, { auth: cred !== undefined, settleMs: 0 });
    if (outcome.kind === 'open') {
      t.cleanup(() => outcome.subscriber.close());
      return { kind: 'open', sub: outcome.subscriber };
    }
    return { kind: 'refused', answer: describeOutcome(outcome) };
  } catch (err) {
    // A handshake the client could not complete (a bad answer to the upgrade) opened no socket.
    if (err instanceof SubscriptionError) return { kind: 'refused', answer: err.message };
    throw err;
  }
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

    // The credentials that must not authorise the write, each tried on every write that took.
    const { variants } = await forbiddenCredentials(t, 'HTTP');
    const statuses: Record<string, number | string> = {};
    for (const [what, target, body] of proven) {
      const tries = new Tries(t, `${what} = ${show(plan.next)}`);
      for (const v of variants) {
        if (!tries.judges(v)) continue;
        invalidateTreeCache();
        const sent = await body();
        const res = await t.client.request('PUT', target, {
          json: { data: sent },
          auth: false,
          relogin: false,
          headers: headersOf(v, 'PUT'),
        });
        const after = await readValue(t, path, name);
        const changed = !sameValue(after, plan.original);
        if (changed) await restore(t, plan);
        await tries.judgeHttp(
          v,
          res,
          { path: target, body: sentBody(sent) },
          changed ? `${name} became ${show(after)} (put back)` : undefined,
        );
      }
      Object.assign(statuses, tries.statuses);
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
      const description = descriptionOf(res);
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
  ['AUTH-2', 'EP-2', 'AUTH-5'],
  'a valid image uploaded without credentials, with a tampered or a logged-out cookie is refused and registers nothing; with the session it registers',
  async (t) => {
    const software = `${t.root}/software`;
    const { variants } = await forbiddenCredentials(t, 'upload');
    const tries = new Tries(t, 'POST /upload/image of a valid image');
    for (const v of variants) {
      if (!tries.judges(v)) continue;
      const before = await listedVersions(t, software);
      const image = await buildImage({ version: freshVersion('noauth'), namespace: t.ns });
      invalidateTreeCache();
      const res = await t.client.upload(image, undefined, { auth: false, relogin: false, headers: headersOf(v, 'POST') });
      const added = await versionsAfter(t, res, before);
      await removeNow(t, added);
      // An image looked at (taken, or refused for what it holds) was not refused for its credentials.
      const change = added.length > 0 ? `it registered ${added.join(', ')} (deleted)` : undefined;
      await tries.judgeHttp(v, res, { path: '/upload/image' }, change, !uploadProcessed(res));
    }
    t.observe('status of refused uploads of a valid image', tries.statuses, 'AUTH-6');
    // The positive twin, last: the same upload with the run's session registers its version.
    const { res, added } = await uploadAndTrack(t, { tag: 'auth-twin' });
    if (res.status !== 200 || added.length === 0)
      notJudged(
        `the same upload with the run's session answered ${describeResponse(res)}${added.length === 0 ? ' and registered nothing' : ''} (see EP-12, RULE-7): no refusal without it proves anything`,
      );
  },
  { profile: 'destructive', ...SLOW },
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

check(
  ['AUTH-3', 'EP-2'],
  'a subscription without credentials, with a tampered or a logged-out cookie is refused and receives nothing of a change the same subscription with a session receives',
  async (t) => {
    const writer = new AttrWriter(t, await firstWritePlan(t));
    const filter = { paths: [writer.path] };
    const { variants, live } = await forbiddenCredentials(t, 'WebSocket');
    // Every socket opens before the change: one that was not closed by then would receive it.
    const sockets: Array<[Forbidden, Socket]> = [];
    for (const v of variants) sockets.push([v, await openSocket(t, v.cred, filter)]);
    const twin = await openSocket(t, live, filter);
    let twinProblem: string | undefined;
    if (twin.kind !== 'open') twinProblem = `the same subscription with a live session was refused: ${twin.answer}`;
    else {
      const notLive = await tryGoLive(t, [{ socket: twin.sub, filter, what: 'the subscription with a live session' }], writer);
      twinProblem = notLive && (notLive.notTested ?? notLive.reason);
    }
    // The sockets that must be refused get as long as the twin had, and its quiet window.
    const lastWrite = writer.writes.at(-1);
    if (lastWrite) await quietSince(t.cfg, lastWrite.at);
    const tries = new Tries(t, `WebSocket /subscribe ${show(filter)}`);
    for (const [v, socket] of sockets) {
      if (!tries.judges(v)) continue;
      if (socket.kind === 'refused') {
        tries.judge(v, socket.answer, true, undefined);
        continue;
      }
      const events = socket.sub.events.filter((e) => isEventLike(e.data));
      const close = socket.sub.closeInfo;
      const answer = close ? `the socket opened, then was closed (code ${close.code})` : 'the socket opened and stayed open';
      const received = events.length > 0 ? `it received ${events.length} event(s), the first ${brief(events[0]!.raw)}` : undefined;
      tries.judge(v, answer, close !== undefined, received);
    }
    t.observe('subscriptions that must be refused', tries.statuses, 'AUTH-6');
    if (twinProblem) notJudged(`the positive twin did not receive the change (see EP-14): ${twinProblem}`);
  },
  { profile: 'safe', timeoutMs: cfg.eventTimeoutMs * (PRIME_ATTEMPTS + 1) + cfg.quietWindowMs * 3 + cfg.timeoutMs * 3 },
);

check(
  ['AUTH-1', 'EP-2', 'AUTH-5'],
  "DELETE of the run's own version without credentials, with a tampered or a logged-out cookie is refused and removes nothing; with the session it removes it",
  async (t) => {
    const { variants } = await forbiddenCredentials(t, 'HTTP');
    const twinProblem = await removalTries(t, variants, { method: 'DELETE', target: (path) => path });
    if (twinProblem) notJudged(`${twinProblem} (see EP-11): no refusal without the session proves anything`);
  },
  { profile: 'destructive', ...SLOW },
);

check(
  ['AUTH-1', 'EP-2', 'AUTH-5'],
  "actions with valid arguments (Delete of the run's own version, DownloadViaTFTP) without credentials, with a tampered or a logged-out cookie are refused and do nothing; with the session they are done",
  async (t) => {
    const { variants } = await forbiddenCredentials(t, 'HTTP');
    const problems: string[] = [];
    const deleteProblem = await removalTries(t, variants, { method: 'POST', target: (path) => `${path}/action/Delete` });
    if (deleteProblem) problems.push(deleteProblem);
    if (t.cfg.tftp) {
      const tftpProblem = await downloadTries(t, variants, [t.cfg.tftp.file, t.cfg.tftp.server]);
      if (tftpProblem) problems.push(tftpProblem);
    } else problems.push('DownloadViaTFTP is not tried: it needs --tftp-server and --tftp-file naming a valid image');
    // Reset is never sent here: a factory reset done without credentials could not be undone.
    if (problems.length === 2) notJudged(`no action was shown to be done with the session (see EP-10, ACT-1): ${problems.join('; ')}`);
    for (const p of problems) t.observe('action not judged', p, 'AUTH-6');
  },
  { profile: 'destructive', ...SLOW },
);

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
  // Any HTTP answer will do: what it says is other requirements' concern. Sent first, so that a
  // plain-HTTP service is shown by the exchange itself.
  const res = await t.client.get(`${t.root}/`);
  ensure(
    t.cfg.target.startsWith('https://'),
    `the target ${t.cfg.target} is not served over HTTPS: GET ${t.root}/ was answered ${res.status} in plain HTTP`,
  );
  ensure(res.status > 0, `GET ${t.root}/ over TLS got no HTTP answer`);
});
