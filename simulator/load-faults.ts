/**
 * Load-only faults: wrong answers a BMC gives only while it is busy, when requests overlap. An idle
 * conformance run sends one request at a time and never meets them, so they stay out of the FAULTS
 * catalogue and the mutation self-test (as the latency faults do); `load --verify` must find each
 * (test/load/verify.test.ts). Each names the requirement it breaks and the fault model's operator.
 *
 * "Busy" is another HTTP request in flight beside the one being handled (the server counts them).
 */
import type { ServerResponse, OutgoingHttpHeaders } from 'node:http';
import type { FaultInfo } from './fault-info.js';

/** Events a subscriber's queue holds while the server is busy; more are dropped. */
export const EVENT_QUEUE_DEPTH = 8;

export const LOAD_FAULTS = [
  {
    name: 'load-stale-read',
    operator: 'stale',
    requirement: 'EP-8',
    description:
      'GET {path}/attr/{name} that overlaps another request answers the value cached at the last quiet read: a written value does not read back while the server is busy',
  },
  {
    name: 'load-lost-update',
    operator: 'acknowledged-not-done',
    requirement: 'EP-8',
    description:
      "PUT {path}/attr/{name} that overlaps another request writes the whole object back from the copy taken at the last quiet write: another writer's update of the same object is lost",
  },
  {
    name: 'load-stale-enumerate',
    operator: 'stale',
    requirement: 'EP-8',
    description:
      'GET {path}/enumerate that overlaps another request answers the map it answered last time: a written value reads back on attr/{name} and the object, not in the enumerate, while the server is busy',
  },
  {
    name: 'load-event-queue-drop',
    operator: 'omit',
    requirement: 'EV-8',
    description: `while the server is busy a subscriber's event queue holds ${EVENT_QUEUE_DEPTH} events; the ones beyond are dropped`,
  },
  {
    name: 'load-interfaces-filter-narrow',
    operator: 'narrow',
    requirement: 'EV-5',
    description:
      'while the server is busy, a subscription filtered on interfaces alone gets no PropertiesChanged: its filter is matched only against the interfaces of InterfacesAdded',
  },
  {
    name: 'load-response-cut',
    operator: 'malformed',
    requirement: 'ENV-4',
    description: 'an answer sent while the server is busy is cut after half its body (Content-Length of the cut body): it is not JSON',
  },
] as const satisfies readonly FaultInfo[];

export const LOAD_FAULT_NAMES: ReadonlySet<string> = new Set(LOAD_FAULTS.map((f) => f.name));

type LoadFaultName = (typeof LOAD_FAULTS)[number]['name'];

/** An attribute as the load faults see it: its current value, and how to set it. */
export interface AttributeSlot {
  name: string;
  value: unknown;
  writable: boolean;
}

/** The active load faults of one simulator and the count of requests in flight they key on. */
export class LoadFaults {
  private readonly active: ReadonlySet<string>;
  private inFlight = 0;
  private readonly readCache = new Map<string, unknown>();
  private readonly enumerateCache = new Map<string, unknown>();
  private readonly objectCopies = new Map<string, Map<string, unknown>>();
  private readonly queueDepth = new WeakMap<object, number>();

  constructor(names: readonly string[]) {
    this.active = new Set(names.filter((n) => LOAD_FAULT_NAMES.has(n)));
  }

  has(name: LoadFaultName): boolean {
    return this.active.has(name);
  }

  /** Another request is in flight beside the one being handled. */
  get busy(): boolean {
    return this.inFlight > 1;
  }

  /** Counts a request from its arrival until its answer is sent (or its socket closes). */
  track(res: ServerResponse): void {
    if (this.active.size === 0) return;
    this.inFlight++;
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      this.inFlight--;
    };
    res.once('finish', leave);
    res.once('close', leave);
    if (this.has('load-response-cut') && this.busy) cutBody(res);
  }

  /** load-stale-read: the value a GET of the attribute answers. */
  readAttribute(path: string, name: string, value: unknown): unknown {
    if (!this.has('load-stale-read')) return value;
    const key = `${path}\n${name}`;
    if (this.busy && this.readCache.has(key)) return this.readCache.get(key);
    this.readCache.set(key, value);
    return value;
  }

  /**
   * load-stale-enumerate: the map GET {path}/enumerate answers. A busy server answers the map it
   * answered last for the path (the first read of a path fills the cache, busy or not).
   */
  enumerate(path: string, fresh: () => unknown): unknown {
    if (!this.has('load-stale-enumerate')) return fresh();
    if (this.busy && this.enumerateCache.has(path)) return this.enumerateCache.get(path);
    const map = fresh();
    this.enumerateCache.set(path, map);
    return map;
  }

  /** load-interfaces-filter-narrow: whether a PropertiesChanged passes a filter of interfaces alone as if none matched. */
  narrowsInterfaces(): boolean {
    return this.has('load-interfaces-filter-narrow') && this.busy;
  }

  /**
   * load-lost-update: after a PUT of `name` stored its value, the writable attributes of the object
   * that `restore` must put back (the copy's values), or none.
   */
  afterWrite(path: string, name: string, attributes: readonly AttributeSlot[]): Array<{ name: string; value: unknown }> {
    if (!this.has('load-lost-update')) return [];
    const now = new Map(attributes.filter((a) => a.writable).map((a) => [a.name, a.value]));
    const copy = this.objectCopies.get(path);
    if (!this.busy || !copy) {
      this.objectCopies.set(path, now);
      return [];
    }
    // The copy is the one of the last quiet write: what other writers did since is written over.
    return [...copy.entries()].filter(([n, v]) => n !== name && now.has(n) && now.get(n) !== v).map(([n, v]) => ({ name: n, value: v }));
  }

  /** load-event-queue-drop: whether this event to this subscriber is dropped. */
  dropsEvent(subscriber: object): boolean {
    if (!this.has('load-event-queue-drop')) return false;
    if (!this.busy) {
      this.queueDepth.set(subscriber, 0);
      return false;
    }
    const depth = (this.queueDepth.get(subscriber) ?? 0) + 1;
    this.queueDepth.set(subscriber, depth);
    return depth > EVENT_QUEUE_DEPTH;
  }
}

/** The answer's body is cut in half, its Content-Length made to match, as a server out of buffer would. */
function cutBody(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (code: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  let head: { code: number; headers: OutgoingHttpHeaders } | undefined;
  res.writeHead = ((code: number, headers?: OutgoingHttpHeaders) => {
    head = { code, headers: headers ?? {} };
    return res;
  }) as typeof res.writeHead;
  res.end = ((chunk?: unknown) => {
    if (!head) return end(chunk);
    const body = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? Buffer.from(chunk) : undefined;
    if (!body || body.length < 2) {
      writeHead(head.code, head.headers);
      return end(chunk);
    }
    const cut = body.subarray(0, Math.floor(body.length / 2));
    const headers = Object.fromEntries(Object.entries(head.headers).filter(([k]) => k.toLowerCase() !== 'content-length'));
    writeHead(head.code, { ...headers, 'Content-Length': cut.length });
    return end(cut);
  }) as typeof res.end;
}
