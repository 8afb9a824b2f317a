/**
 * One sequence of the views check: the model (values, versions, subscribers and the changes each
 * must see) and the target, compared after every command. A view or a subscriber that disagrees
 * with the model is a finding of the requirement of that view or that filter; a change no view
 * shows is the finding of the endpoint that made it. After a finding the search may go on (the
 * requirement is already found): the model then follows what the target did.
 *
 * This module holds the model, its reads of the target and what each subscription received; the
 * writes (views-writes.ts), the versions (views-versions.ts), the subscriptions' opening and
 * waits (views-events.ts) and the diagnosis of a missed event (missed-events.ts) act on it.
 */
import { okData } from '../../client/answer.js';
import { isMap } from '../../client/values.js';
import { show } from '../harness/assert.js';
import { ancestorsOf } from '../harness/leak.js';
import { recordLatency } from '../harness/pace.js';
import { closeAfterQuietWindow } from '../harness/lingering.js';
import { freshVersion } from '../harness/software.js';
import type { ViewsDiscovery } from './discovery.js';
import type { Change, EventFilter, NewChange } from '../events/engine/filters.js';
import { judgeStream, owed, type Expected, type StreamJudgement } from '../events/engine/judge.js';
import type { EventSocket, Subscription } from '../events/engine/subscription.js';
import { World } from './world.js';

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

export class ViewsWorld extends World<ViewsDiscovery> {
  readonly values = new Map<string, unknown>(this.d.writables.map((w) => [w.key, w.original]));
  /** Attribute maps of the versions the sequence created (GET), for their InterfacesAdded. */
  readonly objects = new Map<string, Record<string, unknown>>();
  readonly versions: VersionRecord[] = [];
  readonly subs: JudgedSubscription[] = [];
  readonly log: Change[] = [];
  private changes = 0;
  /** A missed change is being repeated: what its repeats miss is not diagnosed again. */
  confirming = false;

  get versionInterface(): string {
    return `xyz.${this.env.ns}.Software.Version`;
  }

  newVersion(): VersionRecord {
    const rec: VersionRecord = { label: `V${this.versions.length + 1}`, version: freshVersion('stateful'), exists: false, deleted: false };
    this.versions.push(rec);
    return rec;
  }

  // --- Reads -----------------------------------------------------------------------------------

  /** The data of a 200 answer, or undefined (a view that does not answer is not judged here). */
  async readData(path: string): Promise<unknown> {
    return okData(await this.request('GET', path));
  }

  async readList(path: string): Promise<string[] | undefined> {
    const data = await this.readData(path);
    return Array.isArray(data) ? data.filter((p): p is string => typeof p === 'string') : undefined;
  }

  /** The ancestors whose list and enumerate show an object: from its parent up to the namespace root. */
  ancestors(path: string): string[] {
    return ancestorsOf(path).filter((a) => a === this.env.root || a.startsWith(`${this.env.root}/`));
  }

  // --- Changes and what each subscription received ----------------------------------------------

  apply(change: NewChange): Change {
    const c = { ...change, no: ++this.changes } as Change;
    this.log.push(c);
    for (const s of this.subs) s.expected.push(...owed(s.filter, [c]));
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
    return isMap(props) && this.d.writables.some((w) => w.attr.path === data.path && Object.hasOwn(props, w.attr.name));
  }

  received(s: JudgedSubscription, change: Change): boolean {
    return s.expected.some((e) => e.change === change) && !this.judgeSub(s).missing.includes(change);
  }

  /**
   * How long `s` may still take to show `change`: an event timeout from `start`, or, once another
   * subscription received it (the target did signal it), a quiet window after that.
   */
  deadlineFor(s: JudgedSubscription | undefined, change: Change, start: number): number {
    let first = Number.POSITIVE_INFINITY;
    for (const o of this.subs) {
      if (o === s) continue;
      const at = this.judgeSub(o).arrived.get(change.no);
      if (at !== undefined) first = Math.min(first, at);
    }
    return Math.min(start + this.env.eventTimeoutMs, first + this.env.quietWindowMs);
  }

  /** The subscriptions the commands opened: all but the witness. */
  get opened(): JudgedSubscription[] {
    return this.subs.filter((s) => !s.witness);
  }

  /** Every subscription's socket, for the waits. */
  sockets(): EventSocket[] {
    return this.subs.map((x) => x.socket);
  }

  async unsubscribe(s: JudgedSubscription): Promise<void> {
    await s.socket.close();
    this.subs.splice(this.subs.indexOf(s), 1);
  }

  /** Closes every subscription once the last change's quiet window is over, without waiting for it (harness/lingering.ts). */
  closeAll(): void {
    closeAfterQuietWindow(
      this.subs.splice(0).map((s) => s.socket),
      this.env.quietWindowMs,
      this.lastChangeAt,
    );
  }
}

export function describeChange(c: Change): string {
  return c.kind === 'PropertiesChanged'
    ? `change #${c.no} (${c.path} ${c.name} = ${show(c.value)})`
    : `change #${c.no} (${c.path} appeared)`;
}
