/**
 * The event channel behind `wss://.../subscribe`. One global sequence: every change is published
 * synchronously, in the order it happens, to each subscriber whose filter admits it, so no
 * subscriber can see a reordered, dropped or duplicated event.
 */
import { withoutTrailingSlashes } from '../client/trim-end.js';
import type { RawData, WebSocket } from 'ws';
import type { FaultSet } from './faults.js';
import { stringifyJson } from './json.js';
import { filterShapeOf, type EventCause, type FilterShape } from '../client/event-site.js';
import type { EventSiteFaultInfo } from './event-site-faults.js';
import { parentOf } from './model.js';

export interface PropertiesChanged {
  event: 'PropertiesChanged';
  path: string;
  interface: string;
  properties: Record<string, unknown>;
}

export interface InterfacesAdded {
  event: 'InterfacesAdded';
  path: string;
  interfaces: Record<string, Record<string, unknown>>;
}

export type BusEvent = PropertiesChanged | InterfacesAdded;

export interface EventFilter {
  paths?: string[];
  interfaces?: string[];
}

/** The paths a filter lists (none for {} or a filter of another shape). */
function pathsOf(filter: unknown): string[] {
  const paths = (filter as EventFilter | null)?.paths;
  return Array.isArray(paths) ? paths : [];
}

/** Parses the first message of a subscription; returns an error text for a malformed filter. */
export function parseFilter(text: string): EventFilter | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'filter is not JSON';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'filter must be a JSON object';
  }
  const filter: EventFilter = {};
  for (const key of ['paths', 'interfaces'] as const) {
    if (!Object.hasOwn(value, key)) continue;
    const list = (value as Record<string, unknown>)[key];
    if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
      return `filter key ${key} must be an array of strings`;
    }
    filter[key] = list as string[];
  }
  return filter;
}

export interface Subscriber {
  ws: WebSocket;
  sid: string | undefined;
  /** The accepted filter (its shape is the hub's business); null until one is accepted. */
  filter: unknown;
  /** Which keys the filter the client sent has (event faults at a site apply by it). */
  shape?: FilterShape;
  alive: boolean;
  delivered: number;
  /** events-reordered fault: the event waiting to be sent after its successor. */
  held?: string;
  heldTimer?: NodeJS.Timeout;
  /** With a delivery latency: texts waiting for the subscriber's next poll. */
  queue?: string[];
  poll?: NodeJS.Timeout;
  /** close-mutes-path fault: another subscriber to one of its paths closed, and took its match rule along. */
  muted?: boolean;
  /** close-mutes-path fault: this subscriber's going away has muted the others. */
  muting?: boolean;
}

/** What the bus knows about a signal beyond its payload. */
export interface PublishMeta {
  /** The object path the D-Bus signal is emitted from (an InterfacesAdded comes from an ObjectManager). */
  emitter?: string;
  /** What the client did that made the change, where it is one of the causes event site faults know. */
  cause?: EventCause;
  /** A PropertiesChanged's changed properties with the values they had before (as an event shows them). */
  before?: Record<string, unknown>;
}

export interface HubOptions {
  /**
   * Events wait for the subscriber's next poll, every this many ms, and then all go out in order
   * (a server that polls its D-Bus loop). 0: sent at once.
   */
  latencyMs?: number;
  /** Terminate a socket that did not answer the previous ping (default true). */
  terminateOnMissedPong?: boolean;
  /** Payload of the pings (default none). */
  pingPayload?: string;
}

/**
 * events-burst-reordered: events emitted within this many ms of each other are swapped (wide enough
 * that a burst of writes sent at once on a busy machine still falls inside it).
 */
const BURST_WINDOW_MS = 20;

/**
 * properties-changed-coalesced: changes within this many ms of the first go out as one event. Wide
 * enough that two writes sent one after the other still meet in it on a busy machine (at 40 ms a
 * loaded CI runner spaced them wider, and the fault went unseen).
 */
const COALESCE_MS = 250;

/** A subscriber that lets this much pile up unsent is closed rather than silently skipped. */
const MAX_BUFFERED = 64 * 1024 * 1024;

export class EventHub {
  protected readonly subscribers = new Set<Subscriber>();
  private readonly pinger: NodeJS.Timeout;
  protected readonly latencyMs: number;
  private readonly terminateOnMissedPong: boolean;
  private readonly pingPayload: string | undefined;

  constructor(
    protected readonly faults: FaultSet,
    pingIntervalMs: number,
    options: HubOptions = {},
  ) {
    this.latencyMs = options.latencyMs ?? 0;
    this.terminateOnMissedPong = options.terminateOnMissedPong ?? true;
    this.pingPayload = options.pingPayload;
    this.pinger = setInterval(() => this.pingAll(), pingIntervalMs);
    this.pinger.unref();
  }

  attach(ws: WebSocket, sid: string | undefined): void {
    const sub: Subscriber = { ws, sid, filter: null, alive: true, delivered: 0 };
    this.subscribers.add(sub);
    ws.on('pong', () => {
      sub.alive = true;
    });
    ws.on('message', (data, isBinary) => {
      sub.alive = true;
      this.onMessage(sub, toBuffer(data), isBinary);
    });
    ws.on('close', () => this.detach(sub));
    ws.on('error', () => this.detach(sub));
  }

  /** A message from a subscriber: here the spec's one filter per subscription. */
  protected onMessage(sub: Subscriber, data: Buffer, isBinary: boolean): void {
    if (sub.filter) return; // one filter per subscription; later messages are ignored
    const parsed = isBinary ? 'filter must be a text message' : parseFilter(data.toString('utf8'));
    if (typeof parsed === 'string') {
      this.rejectFilter(sub, 1008, parsed);
      return;
    }
    this.accept(sub, parsed);
  }

  /** Closes the socket of a malformed filter (every socket with the bad-filter-kills-all fault). */
  protected rejectFilter(sub: Subscriber, code: number, reason?: string): void {
    const victims = this.faults.has('bad-filter-kills-all') ? [...this.subscribers] : [sub];
    for (const v of victims) v.ws.close(code, reason);
  }

  /** Starts delivery to a subscriber; `shown` is what the extra-event-kind fault echoes. */
  protected accept(sub: Subscriber, filter: unknown, shown: unknown = filter): void {
    sub.filter = filter;
    sub.shape = filterShapeOf(shown);
    if (this.latencyMs > 0 && !sub.poll) {
      sub.queue = [];
      sub.poll = setInterval(() => this.flush(sub), this.latencyMs);
      sub.poll.unref();
    }
    if (this.faults.has('extra-event-kind')) {
      this.send(sub, stringifyJson({ event: 'Subscribed', filter: shown }));
    }
  }

  publish(event: BusEvent, meta: PublishMeta = {}): void {
    if (this.subscribers.size === 0 || this.faults.has('no-events')) return;
    // A close frame received is a subscriber gone, though its socket has not finished closing.
    for (const sub of this.subscribers) if (sub.ws.readyState !== sub.ws.OPEN) this.muteBeside(sub);
    if (event.event === 'InterfacesAdded' && this.faults.has('no-interfaces-added')) return;
    let text: string | undefined;
    if (event.event === 'PropertiesChanged' && this.faults.has('properties-changed-coalesced') && this.coalesce(event)) return;
    for (const sub of this.subscribers) {
      if (sub.muted) continue;
      // events-before-filter: a socket still waiting for its filter gets everything.
      if (!sub.filter && !(this.faults.has('events-before-filter') && sub.ws.readyState === sub.ws.OPEN)) continue;
      const copies = sub.filter ? this.matches(sub, event, meta) : 1;
      if (copies === 0) continue;
      const atSite = meta.cause && sub.shape ? this.faults.atEventSite(meta.cause, sub.shape) : [];
      if (atSite.length > 0) {
        this.deliverAtSite(sub, event, meta, copies, atSite);
        continue;
      }
      const own = this.render(sub, event, meta);
      const out = own ?? (text ??= this.serialise(event));
      for (let i = 0; i < copies; i++) this.deliver(sub, out);
    }
  }

  /** An event as the event faults at the subscriber's site make it (event-site-faults.ts). */
  private deliverAtSite(sub: Subscriber, event: BusEvent, meta: PublishMeta, copies: number, faults: readonly EventSiteFaultInfo[]): void {
    const has = (name: string) => faults.some((f) => f.name === name);
    if (has('event-dropped')) return;
    let shown = event;
    const before =
      event.event === 'PropertiesChanged' && meta.before ? { ...event, properties: { ...event.properties, ...meta.before } } : undefined;
    if (before && has('event-stale-value')) shown = before;
    if (event.event === 'InterfacesAdded' && has('event-wrong-path')) shown = { ...event, path: parentOf(event.path) };
    const text = (e: BusEvent) => this.render(sub, e, meta) ?? this.serialise(e);
    // event-phantom-change: the value held before goes out first, as if it had just been set.
    if (before && has('event-phantom-change')) this.deliver(sub, text(before));
    const out = text(shown);
    const times = has('event-duplicated') ? 2 * copies : copies;
    for (let i = 0; i < times; i++) this.deliver(sub, out);
  }

  /** Only with the extra-event-kind fault: D-Bus's InterfacesRemoved, which the spec excludes. */
  publishRemoved(path: string, interfaces: string[]): void {
    const text = stringifyJson({ event: 'InterfacesRemoved', path, interfaces });
    for (const sub of this.subscribers) if (sub.filter) this.deliver(sub, text);
  }

  /** Logout ends the session's event sockets too. */
  closeSession(sid: string): void {
    for (const sub of this.subscribers) {
      if (sub.sid === sid) sub.ws.close(1008, 'session ended');
    }
  }

  close(): void {
    clearInterval(this.pinger);
    for (const sub of this.subscribers) {
      clearTimeout(sub.heldTimer);
      clearInterval(sub.poll);
      sub.ws.terminate();
    }
    this.subscribers.clear();
  }

  get count(): number {
    return this.subscribers.size;
  }

  /** properties-changed-coalesced: changes of one object and interface waiting to go out as one. */
  private readonly pending = new Map<string, PropertiesChanged>();

  /** Holds a PropertiesChanged back to merge the next ones of its object and interface; true when held. */
  private coalesce(event: PropertiesChanged): boolean {
    const key = `${event.path}\n${event.interface}`;
    const held = this.pending.get(key);
    if (held) {
      Object.assign(held.properties, event.properties);
      return true;
    }
    this.pending.set(key, { ...event, properties: { ...event.properties } });
    setTimeout(() => {
      const merged = this.pending.get(key);
      this.pending.delete(key);
      if (merged) this.publishNow(merged);
    }, COALESCE_MS).unref();
    return true;
  }

  private publishNow(event: PropertiesChanged): void {
    for (const sub of this.subscribers) {
      if (!sub.filter || sub.muted || this.matches(sub, event, {}) === 0) continue;
      this.deliver(sub, this.render(sub, event, {}) ?? this.serialise(event));
    }
  }

  /** How many copies of `event` the subscriber gets (one per matching D-Bus match rule). */
  protected matches(sub: Subscriber, event: BusEvent, _meta: PublishMeta): number {
    return this.admits(sub.filter as EventFilter, event) ? 1 : 0;
  }

  /** A subscriber-specific rendering of the event, or undefined for the shared one. */
  protected render(_sub: Subscriber, _event: BusEvent, _meta: PublishMeta): string | undefined {
    return undefined;
  }

  private admits(filter: EventFilter, event: BusEvent): boolean {
    const paths = this.faults.has('filter-paths-ignored')
      ? undefined
      : oneEntry(filter.paths, this.faults.has('paths-filter-first-entry-only'), this.faults.has('paths-filter-last-entry-only'));
    const interfaces = this.faults.has('filter-interfaces-ignored')
      ? undefined
      : oneEntry(
          filter.interfaces,
          this.faults.has('interfaces-filter-first-entry-only'),
          this.faults.has('interfaces-filter-last-entry-only'),
        );
    if (!paths && !interfaces) {
      return !(this.faults.has('empty-filter-drops') && !filter.paths && !filter.interfaces);
    }
    const byPath = paths ? paths.some((p) => this.pathAdmits(p, event.path)) : undefined;
    let byInterface: boolean | undefined;
    if (interfaces) {
      const named = (i: string) => interfaces.some((listed) => this.interfaceAdmits(listed, i));
      byInterface =
        event.event === 'PropertiesChanged'
          ? named(event.interface) && !(paths === undefined && this.faults.load.narrowsInterfaces())
          : !this.faults.has('interfaces-filter-skips-added') && Object.keys(event.interfaces).some(named);
    }
    if (byPath !== undefined && byInterface !== undefined) {
      return this.faults.has('filter-and') ? byPath && byInterface : byPath || byInterface;
    }
    return (byPath ?? byInterface) as boolean;
  }

  /** Whether a listed path admits a signal's path: equal (the near-miss faults widen it). */
  private pathAdmits(listed: string, path: string): boolean {
    if (listed === path) return true;
    if (this.faults.has('paths-filter-string-prefix') && path.startsWith(listed)) return true;
    if (this.faults.has('paths-filter-subtree') && path.startsWith(`${withoutTrailingSlashes(listed)}/`)) return true;
    return this.faults.has('paths-filter-case-insensitive') && listed.toLowerCase() === path.toLowerCase();
  }

  /** Whether a listed interface admits an interface: equal (the near-miss faults widen it). */
  private interfaceAdmits(listed: string, iface: string): boolean {
    if (listed === iface) return true;
    if (this.faults.has('interfaces-filter-prefix') && iface.startsWith(listed)) return true;
    return this.faults.has('interfaces-filter-case-insensitive') && listed.toLowerCase() === iface.toLowerCase();
  }

  protected serialise(event: BusEvent): string {
    if (event.event === 'PropertiesChanged' && this.faults.has('wrong-interface-name')) {
      return stringifyJson({ ...event, interface: 'org.freedesktop.DBus.Properties' });
    }
    return stringifyJson(event);
  }

  private deliver(sub: Subscriber, text: string): void {
    sub.delivered++;
    if (this.faults.load.dropsEvent(sub)) return;
    if (this.faults.has('events-dropped') && sub.delivered % 3 === 0) return;
    const holdMs = this.faults.has('events-reordered') ? 200 : this.faults.has('events-burst-reordered') ? BURST_WINDOW_MS : 0;
    if (holdMs > 0) {
      if (sub.held === undefined) {
        sub.held = text;
        // A lone event still arrives, late.
        sub.heldTimer = setTimeout(() => this.flushHeld(sub), holdMs);
        return;
      }
      clearTimeout(sub.heldTimer);
      this.send(sub, text);
      this.flushHeld(sub);
      return;
    }
    this.send(sub, text);
    if (this.faults.has('events-duplicated')) this.send(sub, text);
  }

  private flushHeld(sub: Subscriber): void {
    if (sub.held === undefined) return;
    const held = sub.held;
    sub.held = undefined;
    this.send(sub, held);
  }

  /** Sends now, or queues for the next poll when the hub has a latency. */
  protected send(sub: Subscriber, text: string): void {
    if (sub.queue) {
      sub.queue.push(text);
      return;
    }
    this.sendNow(sub, text);
  }

  private flush(sub: Subscriber): void {
    for (const text of sub.queue?.splice(0) ?? []) this.sendNow(sub, text);
  }

  private sendNow(sub: Subscriber, text: string): void {
    if (sub.ws.readyState !== sub.ws.OPEN) return;
    if (sub.ws.bufferedAmount > MAX_BUFFERED) {
      sub.ws.close(1013, 'subscriber too slow');
      return;
    }
    sub.ws.send(text);
  }

  private detach(sub: Subscriber): void {
    clearTimeout(sub.heldTimer);
    clearInterval(sub.poll);
    if (!this.subscribers.delete(sub)) return;
    this.muteBeside(sub);
  }

  /** close-mutes-path fault: a subscriber going away takes the match rules of its paths along. */
  private muteBeside(gone: Subscriber): void {
    if (!this.faults.has('close-mutes-path') || gone.muting) return;
    gone.muting = true;
    const paths = pathsOf(gone.filter);
    for (const other of this.subscribers) if (other !== gone && pathsOf(other.filter).some((p) => paths.includes(p))) other.muted = true;
  }

  private pingAll(): void {
    for (const sub of this.subscribers) {
      if (!sub.alive && this.terminateOnMissedPong) {
        sub.ws.terminate();
        this.detach(sub);
        continue;
      }
      sub.alive = false;
      try {
        sub.ws.ping(this.pingPayload);
      } catch {
        // socket already closing
      }
    }
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** A filter's list as the *-entry-only faults honour it: its first or last entry alone. */
function oneEntry<T>(list: readonly T[] | undefined, first: boolean, last: boolean): readonly T[] | undefined {
  if (!list || list.length < 2) return list;
  return first ? list.slice(0, 1) : last ? list.slice(-1) : list;
}
