/**
 * The credentials check: sessions this check logs in and out itself, and every variant of their
 * cookies tried on each channel. A cookie that must be refused and is taken breaks, by channel,
 * AUTH-1 (HTTP), AUTH-2 (upload) or AUTH-3 (WebSocket); a logged-out one, on any channel, EP-2.
 * Whether an event socket keeps receiving after its session's logout is recorded (the spec does not
 * say). One finding per cookie: the first channel that takes it.
 */
import { isSuccess, loginFormRejected, type BmcClient } from '../../client/http.js';
import { corruptImage } from '../../client/image.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { profileAllows } from '../../runner/config.js';
import { describeResponse, NotJudged, notJudged, show } from '../harness/assert.js';
import { prime, type PrimeWrite } from '../events/engine/prime.js';
import type { Subscription } from '../events/engine/subscription.js';
import { differentValue } from '../harness/writable.js';
import { ownUploadSeen, uploadProcessed } from '../harness/software.js';
import { CHANNELS, Credential, TAKEN_BREAKS, describeOutcome, type Channel, type Cookie, type Probe, type Tamper } from './credentials.js';
import { carrying } from './discovery.js';
import { Notes, World, type StatefulEnv, type Writable } from './world.js';
import { pick } from './property.js';
import { messageOf } from '../../client/errors.js';

export interface SessionsDiscovery {
  /** The run's session: chosen cookies copy its cookie names and shapes. */
  shared: Credential;
  /** Why a channel cannot be judged (it refuses the run's own session), by channel. */
  unjudgedChannels: Partial<Record<Channel, string>>;
  /** Channels that take a request with no credentials at all (their requirement's finding). */
  anonymous: Partial<Record<Channel, string>>;
  /** A writable whose change shows whether an ended session's socket still receives (safe profile). */
  writable?: Writable;
  /** Why no socket can be watched going quiet, when a change of the writable reaches no socket. */
  unwatchable?: string;
  /** The filter of every socket this check opens. */
  filter: { paths: string[] };
}

type ChannelRequirements = Readonly<Record<Channel, string>>;

const LOGGED_OUT: ChannelRequirements = { HTTP: 'EP-2', upload: 'EP-2', WebSocket: 'EP-2' };

const TAMPER_TEXT: Record<Tamper, string> = {
  truncated: 'with the last character of each session cookie value cut',
  extended: 'with one character added to each session cookie value',
  altered: 'with the middle character of each session cookie value changed',
};

/** What the check learns before its sequences: which channels it can judge, and how. */
export async function discoverSessions(env: StatefulEnv, writable: Writable | undefined): Promise<SessionsDiscovery> {
  const filter = { paths: [writable?.attr.path ?? `${env.root}/software`] };
  // The run's own session as a credential: the shape chosen cookies copy.
  const shared = new Credential((env.client.exportCookies() as { cookies?: Cookie[] }).cookies ?? [], '$COOKIE');
  const out: SessionsDiscovery = { shared, unjudgedChannels: {}, anonymous: {}, writable, filter };
  // Before any sequence: nothing it sends is a step, nothing it finds is judged here.
  const world = new SessionsWorld(env, { violation: () => undefined }, new Notes(), out);
  if (!profileAllows(env.cfg.profile, 'safe'))
    out.unjudgedChannels.upload = 'an upload, even one that must be refused, needs the safe profile';
  // The channels at once, and the socket check beside them: a failed upload may take a field
  // server 10-15 s to answer, and each socket watches a quiet window.
  const channelProbes = (['upload', 'WebSocket'] as const).map(async (channel) => {
    if (out.unjudgedChannels[channel]) return;
    const anonymous = await world.probe(channel, undefined);
    if (anonymous.accepted) {
      out.anonymous[channel] =
        `${channel === 'upload' ? 'POST /upload/image' : 'the WebSocket /subscribe'} without any credentials was taken: ${anonymous.answer}`;
      out.unjudgedChannels[channel] = `it takes requests without credentials (see ${TAKEN_BREAKS[channel]})`;
      return;
    }
    // An upload of the run's session this run already saw processed is the same proof, without
    // another failed upload (which a field server answers only after 10-15 s).
    if (channel === 'upload' && ownUploadSeen()) return;
    const own = await world.probe(channel, out.shared);
    if (!own.accepted) out.unjudgedChannels[channel] = `the run's own session is refused there: ${own.answer}`;
  });
  const socketQuiet = world.unwatchable().catch((err: unknown) => `a socket of the run's session could not be opened: ${messageOf(err)}`);
  const [, quiet] = await Promise.all([Promise.all(channelProbes), socketQuiet]);
  // Without a writable there is nothing to watch, whatever the channel.
  const channelNotJudged = writable && out.unjudgedChannels.WebSocket;
  out.unwatchable = channelNotJudged ? `the WebSocket channel is not judged: ${channelNotJudged}` : quiet;
  return out;
}

interface Session {
  label: string;
  cred: Credential;
  state: 'live' | 'logged-out' | 'ended';
  socket?: EventSubscriber;
}

function howEnded(s: Session): string {
  return s.state === 'logged-out' ? 'logged out' : 'ended by the target';
}

export class SessionsWorld extends World<SessionsDiscovery> {
  readonly sessions: Session[] = [];
  private witness?: EventSubscriber;
  private readonly clients: BmcClient[] = [];
  /** The writable's value as the sequence's last write left it. */
  private current: unknown = this.d.writable?.original;

  get live(): Session[] {
    return this.sessions.filter((s) => s.state === 'live');
  }

  /**
   * Logs in a new session, sending a cookie the client made up with `chosen`, and always for the
   * first login of a sequence (so that every sequence tries a cookie chosen before login once).
   */
  async login(chosen: boolean): Promise<Session> {
    const label = String.fromCharCode(65 + this.sessions.length);
    const made = chosen || this.sessions.length === 0 ? this.d.shared.chosen(`$CHOSEN_${label}`) : undefined;
    this.rec.begin(made ? `log in as ${label}, sending session cookies the client made up (${made.shown})` : `log in as ${label}`);
    if (made) this.rec.note(`${made.shown.slice(1)}='${made.header}' (made up by the client)`);
    const { user, password } = this.env.cfg;
    const send = (json: unknown, shownBody: string) => this.request('POST', '/login', { json, shownBody, cred: made, anonymous: !made });
    let res = await send({ data: [user, password] }, `"{\\"data\\": [\\"${user}\\", \\"$PASSWORD\\"]}"`);
    // The field form of newer servers, as the run's own login takes it.
    if (!isSuccess(res) && loginFormRejected(res.status))
      res = await send({ username: user, password }, `"{\\"username\\": \\"${user}\\", \\"password\\": \\"$PASSWORD\\"}"`);
    if (!isSuccess(res)) notJudged(`the login of ${label} answered ${describeResponse(res)} (see EP-1)`);
    const cred = Credential.fromLogin(res, this.env.client.baseUrl, `$COOKIE_${label}`);
    for (const c of cred.cookies) this.env.client.redactCookie(c.value);
    if (cred.session.length === 0) notJudged(`the login of ${label} set no session cookie (see EP-1)`);
    this.rec.note(
      `COOKIE_${label}: the cookies ${label}'s login set, as one Cookie header${cred.xsrf ? `; XSRF_${label}: its XSRF-TOKEN` : ''}`,
    );
    const session: Session = { label, cred, state: 'live' };
    this.sessions.push(session);
    const works = await this.probe('HTTP', cred);
    if (!works.accepted) notJudged(`${label}'s cookie is refused right after its login: ${works.answer} (see EP-1)`);
    // An id issued again: whoever kept the cookie of the session that had it is let back in.
    const revived = this.sessions.find((o) => o !== session && o.state !== 'live' && o.cred.sharesSession(cred));
    if (revived) {
      this.find(
        revived.state === 'logged-out' ? 'EP-2' : 'AUTH-1',
        `the login of ${label} was issued the session cookie of ${revived.label}, ${howEnded(revived)} before: ${revived.label}'s cookie works again`,
      );
    }
    if (made) {
      if (cred.sharesSession(made))
        this.find(
          'AUTH-1',
          `the login of ${label} adopted the session cookie the client sent with it: a cookie chosen before login is now a working session`,
        );
      else await this.refusedEverywhere(made, `the cookie ${label}'s client made up before logging in`, TAKEN_BREAKS);
    }
    return session;
  }

  /** Tries `cred` on one channel; `cred` undefined sends no credentials at all. */
  async probe(channel: Channel, cred: Credential | undefined): Promise<Probe> {
    const { env, d } = this;
    const request = (method: string, path: string, image?: Buffer) =>
      this.request(method, path, { cred, anonymous: cred === undefined, image: image && { bytes: image, file: 'not-a-tarball.bin' } });
    if (channel === 'HTTP') {
      const res = await request('GET', `${env.root}/`);
      return { accepted: isSuccess(res), answer: describeResponse(res) };
    }
    if (channel === 'upload') {
      this.rec.note('not-a-tarball.bin: 1 KiB that no tar reader takes (an upload that passes authentication fails extraction, 400)');
      const res = await request('POST', '/upload/image', corruptImage());
      return { accepted: uploadProcessed(res), answer: describeResponse(res) };
    }
    const client = cred ? cred.client(env.client) : env.client;
    try {
      const outcome = await EventSubscriber.tryOpen(client, d.filter, { auth: cred !== undefined, settleMs: env.quietWindowMs });
      if (outcome.kind === 'open') await outcome.subscriber.close();
      const answer = describeOutcome(outcome);
      this.notes.requests++;
      this.rec.note(`WebSocket /subscribe ${cred ? `with ${cred.shown}` : 'without credentials'}, filter ${show(d.filter)}: ${answer}`);
      return { accepted: outcome.kind === 'open', answer };
    } finally {
      if (cred) await client.close();
    }
  }

  /** A cookie that must be refused, tried on HTTP, then upload, then WebSocket: the first that takes it is the finding. */
  async refusedEverywhere(cred: Credential, what: string, requirements: ChannelRequirements): Promise<void> {
    for (const channel of CHANNELS) {
      if (this.d.unjudgedChannels[channel]) continue;
      const p = await this.probe(channel, cred);
      if (p.accepted)
        return this.find(
          requirements[channel],
          `${what} is taken on ${channel === 'HTTP' ? `HTTP (GET ${this.env.root}/)` : channel === 'upload' ? 'the upload channel (POST /upload/image)' : 'the WebSocket channel (/subscribe)'}: ${p.answer}`,
        );
    }
  }

  /** The cookies of the `i`th live session (one logged in, if none is), changed as `how` says, tried on every channel. */
  async tamper(i: number, how: Tamper): Promise<void> {
    const session = pick(this.live, i) ?? (await this.login(false));
    const variant = session.cred.tampered(how);
    this.rec.begin(`try ${session.label}'s cookies ${how} (${variant.shown}) on HTTP, upload and WebSocket`);
    this.rec.note(`${variant.shown.slice(1)}: ${session.cred.shown} ${TAMPER_TEXT[how]}`);
    await this.refusedEverywhere(variant, `${session.label}'s session cookie ${how}`, TAKEN_BREAKS);
  }

  /**
   * Logs the oldest or the newest live session out while another is live (logged in first if none
   * is, so that a logout that ends the wrong one shows): its cookie must be refused on every
   * channel, the other session must keep working, and its event socket must receive nothing more.
   */
  async logout(which: 'oldest' | 'newest'): Promise<void> {
    while (this.live.length < 2) await this.login(false);
    const live = this.live;
    const s = which === 'oldest' ? live[0]! : live.at(-1)!;
    await this.watch(s);
    this.rec.begin(`log out ${s.label} (the ${which} of ${live.length} live sessions)`);
    const res = await this.request('POST', '/logout', { json: { data: [] }, cred: s.cred });
    if (!isSuccess(res)) return this.find('EP-2', `POST /logout with ${s.label}'s cookie answered ${describeResponse(res)}`);
    s.state = 'logged-out';
    await this.refusedEverywhere(s.cred, `${s.label}'s cookie after its logout`, LOGGED_OUT);
    for (const other of this.live) {
      const p = await this.probe('HTTP', other.cred);
      if (p.accepted) continue;
      // The target ended another session (expired, evicted, or with this logout): ended, it must
      // be so on every channel.
      other.state = 'ended';
      this.rec.note(`${other.label}'s session has ended too: ${p.answer}`);
      await this.refusedEverywhere(other.cred, `${other.label}'s cookie, which the target ended`, TAKEN_BREAKS);
    }
    if (s.socket) await this.silentAfterLogout(s);
  }

  /**
   * The cookie of a session that ended earlier (logged out, or ended by the target), tried again
   * once a later session has logged in: a server that reissues or revives ids takes it again.
   */
  async replay(i: number): Promise<void> {
    if (this.sessions.every((s) => s.state === 'live')) await this.logout('oldest');
    const gone = this.sessions.filter((o) => o.state !== 'live');
    const s = pick(gone, i);
    if (!s) return;
    await this.login(false);
    this.rec.begin(`try ${s.label}'s cookie (${s.cred.shown}) again on HTTP, upload and WebSocket, now that a later session logged in`);
    await this.refusedEverywhere(
      s.cred,
      `${s.label}'s cookie (${howEnded(s)} before a later login)`,
      s.state === 'logged-out' ? LOGGED_OUT : TAKEN_BREAKS,
    );
  }

  /**
   * An event socket for `s` and the witness on the run's session, both proved live by one write.
   * For the first logout of a sequence only: what the socket then receives is an observation (the
   * spec is silent), and each watch costs event waits a slow target makes seconds long.
   */
  private async watch(s: Session): Promise<void> {
    if (!this.d.writable || this.d.unwatchable || !profileAllows(this.env.cfg.profile, 'safe')) return;
    if (this.sessions.some((o) => o.socket)) return;
    this.rec.begin(`open an event socket for ${s.label} with ${show(this.d.filter)}`);
    const client = s.cred.client(this.env.client);
    this.clients.push(client);
    try {
      s.socket = await EventSubscriber.open(client, this.d.filter);
      this.witness ??= await EventSubscriber.open(this.env.client, this.d.filter);
    } catch (err) {
      await this.unwatch(s);
      return this.rec.note(`no socket to watch: ${messageOf(err)}`);
    }
    const subs = [s.socket, this.witness].map((socket, i) => ({ socket, filter: this.d.filter, what: i === 0 ? s.label : 'the witness' }));
    const { notLive } = await prime(this.env, subs, { write: () => this.change() });
    if (notLive.length > 0) {
      await this.unwatch(s);
      this.rec.note('the change did not reach both sockets: whether the socket goes quiet is not judged (see EP-14)');
    }
  }

  /** Closes the socket of `s` that will not be watched (close() puts back only the sockets still kept). */
  private async unwatch(s: Session): Promise<void> {
    await s.socket?.close();
    s.socket = undefined;
  }

  /** After the logout, a change the witness receives must not reach the socket of `s`. */
  private async silentAfterLogout(s: Session): Promise<void> {
    const socket = s.socket!;
    this.rec.begin(`change ${this.d.writable!.attr.path} ${this.d.writable!.attr.name}: ${s.label}'s socket must receive nothing`);
    const mark = socket.mark();
    const witnessMark = this.witness!.mark();
    const { carries: carried } = await this.change();
    const seen = await this.witness!.waitFor(carried, this.env.eventTimeoutMs, { from: witnessMark }).catch(() => undefined);
    if (!seen) return this.rec.note('the witness did not receive the change: not judged');
    // A socket the target closed receives nothing; an open one gets a quiet window to show it does.
    if (!socket.closed) await this.quietAfterLastChange();
    const after = socket.events.slice(mark).find((e) => carried(e.data));
    // The spec ends the session at logout but says nothing of sockets already open (both field
    // servers keep them): recorded, not failed.
    this.notes.observed.set(
      "a logged-out session's event socket",
      after
        ? `still receives after the logout (${socket.closed ? 'it closed later' : 'it stays open'}): ${after.raw.slice(0, 160)}`
        : 'receives nothing after the logout',
    );
  }

  /**
   * Why a socket of the run's session does not show a change of the writable, if it does not (the
   * discovery's world): it is primed as any subscription is (engine/prime.ts), with writes of the writable.
   */
  async unwatchable(): Promise<string | undefined> {
    const w = this.d.writable;
    if (!w) return 'no declared writable attribute to change (safe profile)';
    const socket = await EventSubscriber.open(this.env.client, this.d.filter);
    const sub: Subscription = { socket, filter: this.d.filter, what: "the run's session's socket" };
    let refused: string | undefined;
    // A refused PUT ends the priming, and is the reason.
    const write = () =>
      this.change().catch((err: unknown) => {
        if (!(err instanceof NotJudged)) throw err;
        refused = err.message;
        return undefined;
      });
    try {
      await prime(this.env, [sub], { write });
      if (refused || sub.liveAt !== undefined) return refused;
      return `a change of ${w.attr.path} ${w.attr.name} reached no socket of the run's session (see EP-14)`;
    } finally {
      await socket.close();
      await this.env.restore(w.attr.path, w.attr.name, w.original);
    }
  }

  /** PUT of the writable through the run's session; returns when it was sent and what its event carries. */
  private async change(): Promise<PrimeWrite> {
    const w = this.d.writable!;
    const value = differentValue(w.attr, this.current);
    this.noteWrite(w);
    const at = performance.now();
    const res = await this.request('PUT', `${w.attr.path}/attr/${w.attr.name}`, { json: { data: value } });
    if (!isSuccess(res)) notJudged(`PUT ${w.attr.path}/attr/${w.attr.name} answered ${describeResponse(res)} (see EP-8)`);
    this.current = value;
    return { at, carries: carrying(w, value) };
  }

  /** Closes every socket, logs out every session still live, and puts the writable back. */
  async close(): Promise<void> {
    this.rec.begin('put the target back');
    const sockets = [this.witness, ...this.sessions.map((s) => s.socket)].filter((x): x is EventSubscriber => x !== undefined);
    await Promise.all(sockets.map((x) => x.close()));
    await Promise.all(this.clients.map((c) => c.close()));
    for (const s of this.sessions.filter((x) => x.state !== 'logged-out')) {
      await this.request('POST', '/logout', { json: { data: [] }, cred: s.cred }).catch(() => undefined);
    }
    await this.restoreWrites();
  }
}
