/**
 * The event channel behind `wss://.../subscribe`. One global sequence: every change is published
 * synchronously, in the order it happens, to each subscriber whose filter admits it, so no
 * subscriber can see a reordered, dropped or duplicated event.
 */
import type { WebSocket } from 'ws';
import type { FaultSet } from './faults.js';
import { stringifyJson } from './json.js';

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

interface Subscriber {
  ws: WebSocket;
  sid: string | undefined;
  filter: EventFilter | null;
  alive: boolean;
  delivered: number;
  /** events-reordered fault: the event waiting to be sent after its successor. */
  held?: string;
  heldTimer?: NodeJS.Timeout;
}

/** events-burst-reordered: events emitted within this many ms of each other are swapped. */
const BURST_WINDOW_MS = 5;

/** A subscriber that lets this much pile up unsent is closed rather than silently skipped. */
const MAX_BUFFERED = 64 * 1024 * 1024;

export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private readonly pinger: NodeJS.Timeout;

  constructor(
    private readonly faults: FaultSet,
    pingIntervalMs: number,
  ) {
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
      if (sub.filter) return; // one filter per subscription; later messages are ignored
      const parsed = isBinary ? 'filter must be a text message' : parseFilter(data.toString('utf8'));
      if (typeof parsed === 'string') {
        if (this.faults.has('bad-filter-kills-all')) {
          for (const other of this.subscribers) other.ws.close(1008, parsed);
        } else {
          ws.close(1008, parsed);
        }
        return;
      }
      sub.filter = parsed;
      if (this.faults.has('extra-event-kind')) {
        this.send(sub, stringifyJson({ event: 'Subscribed', filter: parsed }));
      }
    });
    ws.on('close', () => this.detach(sub));
    ws.on('error', () => this.detach(sub));
  }

  publish(event: BusEvent): void {
    if (this.subscribers.size === 0 || this.faults.has('no-events')) return;
    if (event.event === 'InterfacesAdded' && this.faults.has('no-interfaces-added')) return;
    let text: string | undefined;
    for (const sub of this.subscribers) {
      if (!sub.filter || !this.admits(sub.filter, event)) continue;
      text ??= this.serialise(event);
      this.deliver(sub, text);
    }
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
      sub.ws.terminate();
    }
    this.subscribers.clear();
  }

  get count(): number {
    return this.subscribers.size;
  }

  private admits(filter: EventFilter, event: BusEvent): boolean {
    const paths = this.faults.has('filter-paths-ignored') ? undefined : filter.paths;
    const interfaces = this.faults.has('filter-interfaces-ignored') ? undefined : filter.interfaces;
    if (!paths && !interfaces) {
      return !(this.faults.has('empty-filter-drops') && !filter.paths && !filter.interfaces);
    }
    const byPath = paths ? paths.includes(event.path) : undefined;
    let byInterface: boolean | undefined;
    if (interfaces) {
      byInterface =
        event.event === 'PropertiesChanged'
          ? interfaces.includes(event.interface)
          : Object.keys(event.interfaces).some((i) => interfaces.includes(i));
    }
    if (byPath !== undefined && byInterface !== undefined) {
      return this.faults.has('filter-and') ? byPath && byInterface : byPath || byInterface;
    }
    return (byPath ?? byInterface) as boolean;
  }

  private serialise(event: BusEvent): string {
    if (event.event === 'PropertiesChanged' && this.faults.has('wrong-interface-name')) {
      return stringifyJson({ ...event, interface: 'org.freedesktop.DBus.Properties' });
    }
    return stringifyJson(event);
  }

  private deliver(sub: Subscriber, text: string): void {
    sub.delivered++;
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

  private send(sub: Subscriber, text: string): void {
    if (sub.ws.readyState !== sub.ws.OPEN) return;
    if (sub.ws.bufferedAmount > MAX_BUFFERED) {
      sub.ws.close(1013, 'subscriber too slow');
      return;
    }
    sub.ws.send(text);
  }

  private detach(sub: Subscriber): void {
    clearTimeout(sub.heldTimer);
    this.subscribers.delete(sub);
  }

  private pingAll(): void {
    for (const sub of this.subscribers) {
      if (!sub.alive) {
        sub.ws.terminate();
        this.detach(sub);
        continue;
      }
      sub.alive = false;
      try {
        sub.ws.ping();
      } catch {
        // socket already closing
      }
    }
  }
}
