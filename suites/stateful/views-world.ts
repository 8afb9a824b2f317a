/**
 * One sequence of the views check: the model (values, versions, subscribers and the changes each
 * must see) and the target, compared after every command. A view or a subscriber that disagrees
 * with the model is a finding of the requirement of that view or that filter; a change no view
 * shows is the finding of the endpoint that made it. After a finding the search may go on (the
 * requirement is already found): the model then follows what the target did.
 */
import type { BmcResponse } from '../../client/http.js';
import { buildImage, defaultPurpose } from '../../client/image.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { sameValue } from '../../client/values.js';
import { describeResponse, envelopeOf, notJudged, show } from '../harness/assert.js';
import type { Judge } from '../fuzz/runner.js';
import { ancestorsOf } from '../harness/leak.js';
import { recordLatency } from '../harness/pace.js';
import { prime } from '../events/engine/prime.js';
import { isInterfacesAdded } from '../events/events.js';
import type { EventSocket, Subscription } from '../events/engine/subscription.js';
import { nextMessage, sleep, waitUntil } from '../events/engine/waits.js';
import { freshVersion } from '../harness/software.js';
import { differentValue } from '../harness/writable.js';
import type { ViewsDiscovery, Writable } from './discovery.js';
import { admission, filterRequirement, type Change, type EventFilter, type NewChange } from '../events/engine/filters.js';
import {
  addedContentProblem,
  admitsEverySignal,
  carries,
  judgeStream,
  type Expected,
  type StreamJudgement,
} from '../events/engine/judge.js';
import { isSuccess, World, type Notes, type StatefulEnv } from './world.js';

/** Versions this area uploads start so (freshVersion('stateful')); nothing else is deleted at a sequence's end. */
const OWN_VERSION_PREFIX = 'bmc-conformance-stateful-';

/** Subscriptions a sequence keeps open besides the witness. */
export const MAX_SUBSCRIPTIONS = 3;

/** A subscription the model judges: what its filter must admit of the changes since it went live. */
export interface JudgedSubscription extends Subscription {
  filter: EventFilter;
  /** The change that proved it live, and the index of its event: nothing earlier is judged. */
  since: number;
  from: number;
  expected: Expected[];
  reported: Set<string>;
  witness: boolean;
}

export interface VersionRecord {
  label: string;
  /** The MANIFEST version; absent for the image DownloadViaTFTP fetches. */
  version?: string;
  image?: Buffer;
  path?: string;
  exists: boolean;
  /** Deleted by this sequence at least once (an upload of it now is a new registration). */
  deleted: boolean;
}

export type Via = 'attr' | 'object';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class ViewsWorld extends World {
  readonly values = new Map<string, unknown>();
  /** Attribute maps of the versions the sequence created (GET), for their InterfacesAdded. */
  readonly objects = new Map<string, Record<string, unknown>>();
  readonly versions: VersionRecord[] = [];
  readonly subs: JudgedSubscription[] = [];
  readonly log: Change[] = [];
  private changes = 0;
  private confirming = false;

  constructor(
    env: StatefulEnv,
    judge: Judge,
    notes: Notes,
    readonly d: ViewsDiscovery,
  ) {
    super(env, judge, notes);
    for (const w of d.writables) this.values.set(w.key, w.original);
  }

  get versionInterface(): string {
    return `xyz.${this.env.ns}.Software.Version`;
  }

  nextValue(w: Writable): unknown {
    return differentValue(w.attr, this.values.get(w.key));
  }

  // --- Reads -----------------------------------------------------------------------------------

  /** The data of a 200 answer, or undefined (a view that does not answer is not judged here). */
  async readData(path: string): Promise<unknown> {
    const res = await this.request('GET', path);
    if (res.status !== 200) return undefined;
    const envelope = envelopeOf(res);
    return envelope && 'data' in envelope ? envelope.data : undefined;
  }

  async readList(path: string): Promise<string[] | undefined> {
    const data = await this.readData(path);
    return Array.isArray(data) ? data.filter((p): p is string => typeof p === 'string') : undefined;
  }

  /** The ancestors whose list and enumerate show an object: from its parent up to the namespace root. */
  ancestors(path: string): string[] {
    return ancestorsOf(path).filter((a) => a === this.env.root || a.startsWith(`${this.env.root}/`));
  }

  // --- Changes and what each subscription must see ---------------------------------------------

  apply(change: NewChange): Change {
    const c = { ...change, no: ++this.changes } as Change;
    this.log.push(c);
    for (const s of this.subs) {
      const a = admission(s.filter, c);
      if (a !== 'never') s.expected.push({ change: c, admission: a });
    }
    return c;
  }

  /** A change the target did not make after all: no subscription may expect it. */
  forget(change: Change): void {
    this.log.splice(this.log.indexOf(change), 1);
    for (const s of this.subs) s.expected = s.expected.filter((e) => e.change !== change);
  }

  judgeSub(s: JudgedSubscription): StreamJudgement {
    const j = judgeStream({
      what: s.what,
      filter: s.filter,
      expected: s.expected,
      received: s.socket.events.slice(s.from),
      since: s.since,
      log: this.log,
      tracked: (data) => this.tracks(data),
    });
    // The target's pace, for every quiet window after this one (the events suite learns it the same way).
    for (const e of s.expected) {
      const at = j.arrived.get(e.change.no);
      if (at !== undefined && e.change.after !== undefined) recordLatency(at - e.change.after);
    }
    return j;
  }

  /** An event about a writable property or a version this sequence registered. */
  private tracks(data: Record<string, unknown>): boolean {
    if (data.event === 'InterfacesAdded') return this.versions.some((v) => v.path === data.path);
    const props = data.properties;
    return (
      props !== null &&
      typeof props === 'object' &&
      this.d.writables.some((w) => w.attr.path === data.path && Object.hasOwn(props, w.attr.name))
    );
  }

  private received(s: JudgedSubscription, change: Change): boolean {
    return s.expected.some((e) => e.change === change) && !this.judgeSub(s).missing.includes(change);
  }

  /**
   * How long `s` may still take to show `change`: an event timeout from `start`, or, once another
   * subscription received it (the target did signal it), a quiet window after that.
   */
  private deadlineFor(s: JudgedSubscription | undefined, change: Change, start: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (const o of this.subs) {
      if (o === s) continue;
      const at = this.judgeSub(o).arrived.get(change.no);
      if (at !== undefined) first = Math.min(first, at);
    }
    return Math.min(start + this.env.eventTimeoutMs, first + this.env.quietWindowMs);
  }

  /**
   * Waits until every subscription received the changes its filter must admit (each at most its
   * deadline), and every new object's InterfacesAdded signals together carry what GET of it shows
   * (at most an event timeout from its upload), reporting what arrived wrong; then judges what is
   * still missing.
   */
  async settle(): Promise<void> {
    const start = performance.now();
    let missing: Array<[JudgedSubscription, Change[]]> = [];
    for (;;) {
      missing = [];
      const deadlines: number[] = [];
      for (const s of this.subs) {
        const j = this.judgeSub(s);
        for (const p of j.problems) {
          if (s.reported.has(p.key)) continue;
          s.reported.add(p.key);
          this.find(p.requirement, p.message);
        }
        if (j.missing.length > 0) missing.push([s, j.missing]);
        for (const c of j.missing) deadlines.push(this.deadlineFor(s, c, start));
        // A later service may still add interfaces to the path: within an event timeout of the
        // object's existing (its request answered) or of the path's last signal, whichever is later.
        for (const c of j.incomplete) {
          if (!s.reported.has(`added#${c.no}`))
            deadlines.push(Math.max(c.after ?? start, start, lastAddedAt(s, c.path)) + this.env.eventTimeoutMs);
        }
      }
      const next = Math.max(0, ...deadlines);
      if (performance.now() >= next) break;
      await nextMessage(this.sockets(), next);
    }
    for (const [s, changes] of missing) for (const c of changes) await this.missed(s, c);
    await this.judgeAdded();
  }

  /**
   * EV-3 for each new object, once its window is over: the InterfacesAdded signals of its path
   * together carry what GET of it shows (every property, where the filter admits every signal). A
   * disagreement is checked against GET once more: a service may have added its interface between
   * the model's GET and the signal.
   */
  private async judgeAdded(): Promise<void> {
    const fresh = new Map<string, Readonly<Record<string, unknown>> | undefined>();
    for (const s of this.subs) {
      for (const [no, union] of this.judgeSub(s).added) {
        const key = `added#${no}`;
        const change = this.log.find((c) => c.no === no);
        if (s.reported.has(key) || change?.kind !== 'InterfacesAdded') continue;
        const complete = admitsEverySignal(s.filter);
        if (!addedContentProblem(union, change.map, complete)) continue;
        if (!fresh.has(change.path)) {
          const now = await this.readData(change.path);
          fresh.set(change.path, isRecord(now) ? now : change.map);
        }
        const problem = addedContentProblem(union, fresh.get(change.path), complete);
        if (!problem) continue;
        s.reported.add(key);
        this.find('EV-3', `${s.what} (filter ${show(s.filter)}): InterfacesAdded of ${change.path}: ${problem}`);
      }
    }
  }

  /** Every subscription's socket, for the waits. */
  private sockets(): EventSocket[] {
    return this.subs.map((x) => x.socket);
  }

  /** What arrives late: the last change's quiet window, then everything judged once more. */
  async finish(): Promise<void> {
    await this.quietAfterLastChange();
    await this.settle();
  }

  /**
   * A change `s` must have received and did not. Received by no one: the change raised no event
   * (a repeat tells a lost InterfacesAdded from none at all). Received by others: a repeat of it
   * tells a lost event (the repeat arrives) from a filter that drops it (the repeat does not).
   */
  private async missed(s: JudgedSubscription, change: Change): Promise<void> {
    const key = `missing#${change.no}`;
    if (s.reported.has(key) || !s.expected.some((e) => e.change === change)) return;
    s.reported.add(key);
    const others = this.subs.filter((o) => o !== s && admission(o.filter, change) === 'must');
    const elsewhere = others.filter((o) => this.received(o, change)).map((o) => o.what);
    const what = describeChange(change);
    const drop = (): void => {
      s.expected = s.expected.filter((e) => e.change !== change);
    };
    if (elsewhere.length === 0 && change.kind === 'PropertiesChanged') {
      drop();
      return this.find(
        'EV-8',
        `${what} raised no PropertiesChanged on any subscription whose filter admits it (${[s, ...others].map((o) => `${o.what} ${show(o.filter)}`).join(', ')})`,
      );
    }
    if (this.confirming) return drop();
    drop();
    // Received nowhere: two repeats, so that a subscription losing every third event cannot lose all three.
    const repeats = await this.repeated(s, change, elsewhere.length === 0 ? 2 : 1);
    if (repeats.length === 0) return;
    if (elsewhere.length === 0) {
      const lost = repeats.find((r) => this.subs.some((o) => this.received(o, r)));
      if (lost)
        return this.find(
          'EV-8',
          `${what} raised no InterfacesAdded on any subscription that admits it, though its repeat (${describeChange(lost)}) did`,
        );
      return this.find(
        'EV-3',
        `${what} raised no InterfacesAdded on any subscription whose filter admits it (${[s, ...others].map((o) => `${o.what} ${show(o.filter)}`).join(', ')}), nor did its repeats`,
      );
    }
    if (this.received(s, repeats[0]!))
      return this.find(
        'EV-8',
        `${s.what} (filter ${show(s.filter)}) lost the event of ${what}, which ${elsewhere.join(', ')} received; the event of its repeat arrived`,
      );
    this.find(
      filterRequirement(s.filter),
      `${s.what} (filter ${show(s.filter)}) received neither ${what} nor its repeat, which its filter admits and ${elsewhere.join(', ')} received`,
    );
  }

  /** `count` repeats of `change`, each waited for on `s`; none of them is judged missing later. */
  private async repeated(s: JudgedSubscription, change: Change, count: number): Promise<Change[]> {
    const out: Change[] = [];
    this.confirming = true;
    try {
      for (let i = 0; i < count; i++) {
        const repeat = await this.repeat(change);
        if (!repeat) break;
        out.push(repeat);
        const start = performance.now();
        const seen = () => this.received(s, repeat) || s.socket.closed;
        await waitUntil(seen, () => this.deadlineFor(s, repeat, start), [s.socket]);
      }
    } finally {
      this.confirming = false;
    }
    for (const r of out) {
      s.reported.add(`missing#${r.no}`);
      if (!this.received(s, r)) s.expected = s.expected.filter((e) => e.change !== r);
    }
    return out;
  }

  /** The same kind of change once more, through the endpoint that signals it most plainly. */
  private async repeat(change: Change): Promise<Change | undefined> {
    this.rec.note(`to tell a lost event from a filter, ${describeChange(change)} was repeated`);
    if (change.kind === 'PropertiesChanged') {
      const w = this.d.writables.find((x) => x.attr.path === change.path && x.attr.name === change.name);
      return w ? this.write(w, 'attr', { views: false }) : undefined;
    }
    return (await this.upload(this.newVersion(), 'POST'))?.change;
  }

  // --- Writes -----------------------------------------------------------------------------------

  /** PUT of one attribute, or of the whole object with it changed; the views are compared unless told not to. */
  async write(w: Writable, via: Via, opts: { views: boolean } = { views: true }): Promise<Change | undefined> {
    const { path, name } = w.attr;
    const value = this.nextValue(w);
    this.noteWrite(path, name, w.original);
    const requirement = via === 'attr' ? 'EP-8' : 'EP-9';
    let what: string;
    let res;
    const after = performance.now();
    if (via === 'attr') {
      what = `PUT ${path}/attr/${name} = ${show(value)}`;
      res = await this.request('PUT', `${path}/attr/${name}`, { data: value });
    } else {
      // The body is the object as GET shows it now, with the one attribute changed (rule 2).
      const map = await this.readData(path);
      if (!isRecord(map)) notJudged(`GET ${path} gives no attribute map to PUT back (see EP-3)`);
      what = `PUT ${path} with ${name} = ${show(value)}`;
      res = await this.request('PUT', path, { data: { ...map, [name]: value } });
    }
    if (!isSuccess(res)) {
      this.find(requirement, `${what} answered ${describeResponse(res)}`);
      return undefined;
    }
    const change = this.apply({ kind: 'PropertiesChanged', path, name, value, iface: w.iface, after });
    this.values.set(w.key, value);
    if (opts.views && !(await this.viewsShowWrite(w, value, requirement, what))) {
      this.forget(change);
      return undefined;
    }
    return change;
  }

  /**
   * GET, attr/{name} and the enumerate of each ancestor must all show the written value. None
   * does: the write did not take (the endpoint's finding). Some do: each that does not is its own.
   * The object stays named by its parent's listing and by the list of each ancestor.
   */
  private async viewsShowWrite(w: Writable, value: unknown, requirement: string, what: string): Promise<boolean> {
    const { path, name } = w.attr;
    const views: Array<{ view: string; requirement: string; value: unknown }> = [];
    const map = await this.readData(path);
    if (isRecord(map)) views.push({ view: `GET ${path}`, requirement: 'EP-3', value: map[name] });
    const attr = await this.readData(`${path}/attr/${name}`);
    if (attr !== undefined) views.push({ view: `GET ${path}/attr/${name}`, requirement: 'EP-4', value: attr });
    for (const a of this.ancestors(path)) {
      const all = await this.readData(`${a}/enumerate`);
      if (isRecord(all) && isRecord(all[path])) views.push({ view: `GET ${a}/enumerate`, requirement: 'EP-7', value: all[path][name] });
    }
    await this.stillNamed(path, what);
    if (views.length === 0) return true;
    const agree = views.filter((v) => sameValue(v.value, value));
    if (agree.length === 0) {
      this.values.set(w.key, views[0]!.value);
      this.find(
        requirement,
        `${what} answered success, but no view shows the new value: ${views.map((v) => `${v.view} shows ${show(v.value)}`).join('; ')}`,
      );
      return false;
    }
    for (const v of views.filter((x) => !sameValue(x.value, value))) {
      this.find(
        v.requirement,
        `after ${what}, ${v.view} shows ${show(v.value)} while ${agree.map((a) => a.view).join(' and ')} show${agree.length === 1 ? 's' : ''} it`,
      );
    }
    return true;
  }

  /** A written object is still named by its parent's children listing and by each ancestor's list. */
  private async stillNamed(path: string, what: string): Promise<void> {
    const parent = path.slice(0, path.lastIndexOf('/'));
    const kids = parent.length > 0 ? await this.readList(`${parent}/`) : undefined;
    if (kids && !kids.includes(path)) this.find('EP-5', `after ${what}, GET ${parent}/ no longer names ${path}`);
    for (const a of this.ancestors(path)) {
      const listed = await this.readList(`${a}/list`);
      if (listed && !listed.includes(path)) this.find('EP-6', `after ${what}, GET ${a}/list no longer names ${path}`);
    }
  }

  // --- Versions ---------------------------------------------------------------------------------

  newVersion(): VersionRecord {
    const rec: VersionRecord = { label: `V${this.versions.length + 1}`, version: freshVersion('stateful'), exists: false, deleted: false };
    this.versions.push(rec);
    return rec;
  }

  /**
   * Version paths under software/ before a registration: the model's, and what the listing shows
   * now (a version a failed DELETE left behind is not new).
   */
  async versionsNow(): Promise<Set<string>> {
    const out = new Set(this.d.versionsBefore);
    for (const v of this.versions) if (v.exists && v.path) out.add(v.path);
    for (const k of (await this.readList(`${this.d.softwareRoot}/`)) ?? []) out.add(k);
    return out;
  }

  /**
   * Uploads `rec`'s image. A version that exists must be refused (ERR-3); any other must answer
   * the id of the version that appears, and appear in every view (InterfacesAdded included).
   */
  async upload(rec: VersionRecord, via: 'POST' | 'PUT'): Promise<{ change: Change } | undefined> {
    rec.image ??= await buildImage({ version: rec.version!, namespace: this.env.ns, purpose: defaultPurpose(this.env.ns) });
    const file = `${rec.label}.tar`;
    this.rec.note(`${file}: an image tarball whose MANIFEST reads version=${rec.version}, purpose=${defaultPurpose(this.env.ns)}`);
    const remote = `${rec.version}.tar`;
    const what = via === 'POST' ? `POST /upload/image of ${rec.label}` : `PUT /upload/image/${remote} of ${rec.label}`;
    const before = rec.exists ? undefined : await this.versionsNow();
    const after = performance.now();
    const res = await this.request(via, via === 'POST' ? '/upload/image' : `/upload/image/${remote}`, {
      image: { bytes: rec.image, file },
    });
    if (rec.exists) {
      this.duplicateRefused(res, `${what}, which exists as ${rec.path}`, via);
      return undefined;
    }
    const requirement = via === 'POST' ? 'EP-12' : 'EP-13';
    if (!isSuccess(res)) {
      // Refused as existing when it was deleted: the registration outlived the version (rule 7).
      const description = (envelopeOf(res)?.data as { description?: unknown } | null | undefined)?.description;
      if (rec.deleted && res.status === 400 && typeof description === 'string' && /already exists/i.test(description)) {
        this.find(
          'RULE-7',
          `${what}, uploaded again after its deletion, answered ${describeResponse(res)} ${show(description)}: no such version exists`,
        );
      } else {
        this.find(requirement, `${what}${rec.deleted ? ', uploaded again after its deletion,' : ''} answered ${describeResponse(res)}`);
      }
      return undefined;
    }
    const data = envelopeOf(res)?.data;
    const id = typeof data === 'string' && data !== '' ? data : undefined;
    // Where the version is, first: whatever is judged, the sequence's end must find it to delete it.
    const path = await this.appeared(before!, id, what, 'RULE-7', (p) => {
      rec.path = p;
      rec.exists = true;
    });
    if (id === undefined) this.find(requirement, `${what} answered data ${show(data)}, not a version id string`);
    if (!path) return undefined;
    const change = this.apply({ kind: 'InterfacesAdded', path, interfaces: [this.versionInterface], map: this.objects.get(path), after });
    if (id !== undefined && path.slice(path.lastIndexOf('/') + 1) !== id) {
      this.find(requirement, `${what} answered the id ${show(id)}, but the version that appeared is ${path}`);
    }
    return { change };
  }

  /**
   * An upload of a version that exists: 400, with a description (where there is one) saying so.
   * Another refusal of the channel (405, 415…) is the channel's own answer, not judged here.
   */
  private duplicateRefused(res: BmcResponse, what: string, via: 'POST' | 'PUT'): void {
    if (res.status >= 400 && res.status < 500 && res.status !== 400)
      return this.rec.note(
        `${what.split(',')[0]} answered ${describeResponse(res)}: the ${via} upload channel refuses it whatever it carries (not judged here)`,
      );
    if (res.status !== 400) return this.find('ERR-3', `${what} answered ${describeResponse(res)}, not 400`);
    const description = (envelopeOf(res)?.data as { description?: unknown } | null | undefined)?.description;
    if (typeof description === 'string' && !/already exists|extract/i.test(description)) {
      this.find('ERR-3', `${what} answered 400 with the description ${show(description)}, which does not say the version exists`);
    }
  }

  /**
   * The version an upload (or DownloadViaTFTP) registered: new in the children of software/
   * (waited for), else the object the answered id names. Every view must show it.
   */
  async appeared(
    before: ReadonlySet<string>,
    id: string | undefined,
    what: string,
    requirement: string,
    found: (path: string) => void,
  ): Promise<string | undefined> {
    const software = this.d.softwareRoot;
    const deadline = performance.now() + this.env.uploadWaitMs;
    let kids: string[] | undefined;
    let added: string[] = [];
    for (;;) {
      kids = await this.readList(`${software}/`);
      added = (kids ?? []).filter((k) => !before.has(k) && k.startsWith(`${software}/`));
      if (added.length > 0 || performance.now() >= deadline) break;
      await sleep(200);
    }
    let path = added.find((p) => id !== undefined && p.endsWith(`/${id}`)) ?? added[0];
    if (!path && id !== undefined && (await this.readData(`${software}/${id}`)) !== undefined) path = `${software}/${id}`;
    if (!path) {
      this.find(requirement, `${what} answered success, but no version appeared under ${software}`);
      return undefined;
    }
    // Known before anything is judged: whatever is found, the sequence's end deletes it.
    found(path);
    const map = await this.readData(path);
    if (isRecord(map)) this.objects.set(path, map);
    else this.find('EP-3', `after ${what}, ${path} appeared, but GET ${path} gives no attribute map`);
    if (kids && !kids.includes(path)) this.find('EP-5', `after ${what}, GET ${software}/ does not name ${path}, which GET answers`);
    await this.membership(path, true, what);
    return path;
  }

  /**
   * list and enumerate of software/ and of each of its ancestors up to the namespace root name
   * `path` exactly when it exists; enumerate with GET's map.
   */
  private async membership(path: string, exists: boolean, what: string): Promise<void> {
    for (const a of this.ancestors(path)) {
      const listed = await this.readList(`${a}/list`);
      if (listed && listed.includes(path) !== exists)
        this.find('EP-6', `after ${what}, GET ${a}/list ${exists ? 'does not name' : 'still names'} ${path}`);
      const all = await this.readData(`${a}/enumerate`);
      if (!isRecord(all)) continue;
      if (Object.hasOwn(all, path) !== exists) {
        this.find('EP-7', `after ${what}, GET ${a}/enumerate ${exists ? 'does not map' : 'still maps'} ${path}`);
        continue;
      }
      const map = this.objects.get(path);
      if (exists && map && !sameValue(all[path], map))
        this.find('EP-7', `after ${what}, GET ${a}/enumerate maps ${path} to ${show(all[path])}; GET of it answers ${show(map)}`);
    }
  }

  /** DELETE of a version the sequence created: gone from GET, the listing, list and enumerate. */
  async remove(rec: VersionRecord): Promise<void> {
    const path = rec.path!;
    const what = `DELETE ${path}`;
    const res = await this.request('DELETE', path);
    if (!isSuccess(res))
      return this.find('EP-11', `${what} (${rec.label}, which this sequence uploaded) answered ${describeResponse(res)}`);
    const software = this.d.softwareRoot;
    const get = await this.request('GET', path);
    // GET is the object itself: while it answers, the DELETE did not remove it.
    if (get.status === 200) return this.find('EP-11', `${what} answered ${res.status}, but GET ${path} still answers 200`);
    rec.exists = false;
    rec.deleted = true;
    this.objects.delete(path);
    const kids = await this.readList(`${software}/`);
    if (kids?.includes(path)) this.find('EP-5', `after ${what}, GET ${software}/ still names ${path}, which GET answers ${get.status}`);
    await this.membership(path, false, what);
  }

  // --- Subscriptions ---------------------------------------------------------------------------

  /**
   * Opens a subscription and proves it live with a write its filter admits (nothing acknowledges a
   * filter). One that never goes live while the witness receives the writes breaks its filter's
   * requirement; when nothing receives them, the subscription is not judged.
   */
  async subscribe(label: string, filter: EventFilter, primer: Writable, witness = false): Promise<JudgedSubscription | undefined> {
    let socket: EventSubscriber;
    try {
      socket = await EventSubscriber.open(this.env.client, filter);
    } catch (err) {
      notJudged(
        `${label}: opening /subscribe with ${show(filter)} failed: ${err instanceof Error ? err.message : String(err)} (see EP-14)`,
      );
    }
    const s: JudgedSubscription = { socket, filter, what: label, since: 0, from: 0, expected: [], reported: new Set(), witness };
    const writes: Change[] = [];
    const { path, name } = primer.attr;
    const admitting = this.subs.filter(
      (o) => admission(o.filter, { no: 0, kind: 'PropertiesChanged', path, name, value: undefined, iface: primer.iface }) !== 'never',
    );
    const { cut } = await prime(this.env, [s], {
      write: async () => {
        const change = await this.write(primer, 'attr', { views: false });
        if (!change) return undefined;
        writes.push(change);
        return { at: change.after!, carries: (d) => isRecord(d) && carries(d, change) };
      },
      bystanders: admitting.map((o) => o.socket),
      // Another priming write would end past the check's time budget: the sequence ends here, the
      // subscription not judged (a filter that excludes the write takes every round).
      budget: () => this.fitsBudget(0),
    });
    if (s.liveAt !== undefined) {
      const live = writes.find((c) => carries(socket.events[s.liveAt!]!.data as Record<string, unknown>, c))!;
      s.since = live.no;
      s.from = s.liveAt;
      s.expected = this.log
        .filter((c) => c.no >= live.no)
        .flatMap((c) => {
          const a = admission(filter, c);
          return a === 'never' ? [] : [{ change: c, admission: a }];
        });
      this.subs.push(s);
      return s;
    }
    await socket.close();
    if (cut) {
      this.cut = true;
      return undefined;
    }
    // A target that closes the socket at once answers before the others' events of the write arrive.
    const last = writes.at(-1);
    const waitFrom = performance.now();
    if (last)
      await waitUntil(
        () => this.subs.some((o) => this.received(o, last)),
        () => waitFrom + this.env.eventTimeoutMs,
        this.sockets(),
      );
    const how = socket.closeInfo
      ? `the target closed it (code ${socket.closeInfo.code}${socket.closeInfo.reason ? ` "${socket.closeInfo.reason}"` : ''})`
      : `${writes.length} write(s) of ${path} ${name} arrived nowhere on it`;
    const seen = this.subs.filter((o) => writes.some((c) => this.received(o, c))).map((o) => o.what);
    if (witness || seen.length === 0)
      notJudged(`${label} with ${show(filter)} never went live: ${how}, and no other subscription received the writes (see EP-14)`);
    this.find(
      filterRequirement(filter),
      `${label} with the filter ${show(filter)} never went live: ${how}, while ${seen.join(', ')} received them`,
    );
    return undefined;
  }

  /**
   * Deletes every version the sequence registered: those the model knows, and any other new one
   * whose version string is this run's own (a sequence stopped by a finding may not have seen it).
   */
  async deleteOwnVersions(): Promise<void> {
    const paths = new Set(this.versions.filter((v) => v.exists && v.path).map((v) => v.path!));
    for (const k of (await this.readList(`${this.d.softwareRoot}/`)) ?? []) {
      if (paths.has(k) || this.d.versionsBefore.has(k) || !k.startsWith(`${this.d.softwareRoot}/`)) continue;
      const map = await this.readData(k);
      if (isRecord(map) && typeof map.Version === 'string' && map.Version.startsWith(OWN_VERSION_PREFIX)) paths.add(k);
    }
    for (const path of paths) {
      const res = await this.request('DELETE', path);
      const after = await this.request('GET', path);
      if (!isSuccess(res) || after.status === 200) {
        this.notes.restoreFailures.push({
          requirement: 'EP-11',
          message: `${path}, uploaded by the sequence, could not be deleted: DELETE answered ${describeResponse(res)}, GET then ${after.status}`,
        });
      }
    }
  }

  async unsubscribe(s: JudgedSubscription): Promise<void> {
    await s.socket.close();
    this.subs.splice(this.subs.indexOf(s), 1);
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.subs.splice(0).map((s) => s.socket.close()));
  }
}

/** When the last InterfacesAdded of `path` reached `s`, or 0. */
function lastAddedAt(s: JudgedSubscription, path: string): number {
  let last = 0;
  for (const e of s.socket.events.slice(s.from)) {
    if (isInterfacesAdded(e.data) && e.data.path === path) last = e.at;
  }
  return last;
}

export function describeChange(c: Change): string {
  return c.kind === 'PropertiesChanged'
    ? `change #${c.no} (${c.path} ${c.name} = ${show(c.value)})`
    : `change #${c.no} (${c.path} appeared)`;
}
