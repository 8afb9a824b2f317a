/**
 * Single-register linearizability under load (load --verify): N sessions of their own PUT and GET
 * one declared writable attribute (the register) back to back while a scenario runs, the GETs in
 * turn on every endpoint that carries its value (attr/{name}, the object, the parent's enumerate:
 * a cache stale on one endpoint only shows), and each
 * operation's invocation and response times (performance.now()) and values are recorded. When the
 * register's object has a second declared writable, one more session writes that one meanwhile: two
 * writers of one object, where a lost update shows. After the scenario the history is checked; a
 * failing one is shrunk to a minimal history for the report. The register's value is put back and
 * read back at the end of the run.
 */
import { dataOf } from '../../client/answer.js';
import type { BmcClient } from '../../client/http.js';
import { isMap } from '../../client/values.js';
import type { RestoreResult } from '../write-mix.js';
import { attrPath, restoreOriginals } from '../write-mix.js';
import type { ValueCycle } from '../values.js';
import { READ_ENDPOINTS, type ReadEndpoint, type RegisterHistory, type RegisterOperation } from './history.js';
import { checkLinearizability } from './linearizability.js';
import { changedValue, type EventCount } from './register-events.js';
import type { EventFilter } from '../../client/event-filter.js';
import { FILTER_KINDS, filterFor, judgeStream, type FilterKind, type StreamCount } from './filters.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { replayKey } from './replay-key.js';
import { shrinkHistory } from './shrink.js';
import { timelineSvg } from './timeline-svg.js';

export const DEFAULT_VERIFY_SESSIONS = 4;
/** Operations per scenario at most: the checker stays quick, whatever the target's speed. */
export const MAX_REGISTER_OPS = 600;

/** What a round (one scenario) of the register found. */
export interface RegisterRound {
  scenario: string;
  /** A step of a conformant capacity search: its offered rate (requests/s). */
  rate?: number;
  operations: number;
  /** Operations that failed or never answered (ambiguous writes, dropped reads). */
  failed: number;
  verdict: 'linearizable' | 'not-linearizable' | 'unknown';
  note?: string;
  /** The subscription on the register's path (a register with distinct values only). */
  events?: EventCount & { firstRps: number };
  /** Every subscriber, one per kind of filter (paths, interfaces, both, none), each judged. */
  streams?: StreamCount[];
  /** Set when not linearizable: the shrunk history, its key and its picture. */
  violation?: {
    /** Load level (requests/s) when the first operation of the shrunk history was sent. */
    firstRps: number;
    operations: number;
    replayKey: string;
    svg: string;
    history: RegisterHistory;
  };
}

/** The register and, when its object has one, a second writable attribute of that object. */
export function chooseRegister(cycles: readonly ValueCycle[]): { register: ValueCycle; sibling?: ValueCycle } | undefined {
  const siblingOf = (c: ValueCycle) => cycles.find((o) => o !== c && o.path === c.path);
  const distinct = (c: ValueCycle) => typeof c.original === 'string';
  const register = cycles.find((c) => distinct(c) && siblingOf(c)) ?? cycles.find(distinct) ?? cycles[0];
  if (!register) return undefined;
  const sibling = siblingOf(register);
  return { register, ...(sibling && { sibling }) };
}

/** The GET that reads the register on an endpoint, and where its value sits in the answer's data. */
export function readOn(endpoint: ReadEndpoint, path: string, name: string): { url: string; value: (data: unknown) => unknown } {
  const member = (data: unknown, key: string): unknown => (isMap(data) && Object.hasOwn(data, key) ? data[key] : undefined);
  switch (endpoint) {
    case 'attr':
      return { url: attrPath(path, name), value: (data) => data };
    case 'object':
      return { url: path, value: (data) => member(data, name) };
    case 'enumerate':
      return { url: `${path.slice(0, path.lastIndexOf('/'))}/enumerate`, value: (data) => member(member(data, path), name) };
  }
}

/** What a round starts from: the register's value, and the subscribers opened before the load. */
export interface PreparedRound {
  initial: unknown;
  subs: Array<{ kind: FilterKind; filter: EventFilter; sub: EventSubscriber }>;
  note?: string;
}

function eventCount(s: StreamCount): EventCount {
  const { expected, delivered, lost, duplicated, reordered, example } = s;
  return { expected, delivered, lost, duplicated, reordered, ...(example && { example }) };
}

export class RegisterVerifier {
  private written = 0;
  /** The register's interface: null until asked, undefined when no event named it. */
  private iface: string | undefined | null = null;
  private readTurn = 0;

  private constructor(
    private readonly main: BmcClient,
    private readonly sessions: BmcClient[],
    private readonly register: ValueCycle,
    private readonly sibling: ValueCycle | undefined,
    private readonly reads: readonly ReadEndpoint[],
  ) {}

  /** Logs N sessions in (forks of the run's client: same target, their own cookies). */
  static async open(
    client: BmcClient,
    register: ValueCycle,
    sibling: ValueCycle | undefined,
    n: number,
    reads: readonly ReadEndpoint[] = READ_ENDPOINTS,
  ): Promise<RegisterVerifier> {
    const sessions = Array.from({ length: n + (sibling ? 1 : 0) }, () => client.fork());
    await Promise.all(sessions.map((s) => s.login()));
    return new RegisterVerifier(client, sessions, register, sibling, reads.length > 0 ? reads : ['attr']);
  }

  get path(): string {
    return this.register.path;
  }

  get name(): string {
    return this.register.name;
  }

  /** Distinct values make every read name the write it saw: strings get a counter, others cycle. */
  private nextValue(): unknown {
    if (typeof this.register.original === 'string') return `${this.register.original.slice(0, 40)}-lin${++this.written}`;
    this.written++;
    return this.register.next();
  }

  /**
   * The register's interface, from the PropertiesChanged of one write watched on its path: the
   * spec's reads do not name interfaces, and the interfaces filters need it. Learnt once.
   */
  private async learnInterface(eventTimeoutMs: number): Promise<string | undefined> {
    if (this.iface !== null) return this.iface;
    this.iface = undefined;
    const sub = await EventSubscriber.open(this.main, { paths: [this.register.path] }).catch(() => undefined);
    if (!sub) return undefined;
    try {
      const res = await this.main.put(attrPath(this.register.path, this.register.name), this.nextValue());
      if (res.status !== 200) return undefined;
      const ev = await sub
        .waitFor((d) => changedValue(d, this.register.path, this.register.name) !== undefined, eventTimeoutMs)
        .catch(() => undefined);
      const iface = (ev?.data as { interface?: unknown } | undefined)?.interface;
      this.iface = typeof iface === 'string' ? iface : undefined;
      return this.iface;
    } finally {
      await sub.close();
    }
  }

  /**
   * Before a scenario starts, on a quiet target: the register's value, and the verifier's
   * subscribers, one per kind of filter, when events are judged (a register with distinct values
   * only; the interfaces filters only once its interface is known).
   */
  async prepare(eventTimeoutMs?: number): Promise<PreparedRound> {
    if (eventTimeoutMs !== undefined && typeof this.register.original === 'string') await this.learnInterface(eventTimeoutMs);
    const res = await this.main.get(attrPath(this.register.path, this.register.name));
    if (res.status !== 200) return { initial: undefined, subs: [], note: `the register's GET answered ${res.statusLine}` };
    const initial = dataOf(res);
    if (eventTimeoutMs === undefined || typeof initial !== 'string') return { initial, subs: [] };
    const iface = this.iface ?? undefined;
    const kinds = FILTER_KINDS.filter((k) => iface !== undefined || k === 'paths' || k === 'none');
    const opened = await Promise.all(
      kinds.map(async (kind) => {
        const filter = filterFor(kind, this.register.path, iface);
        const sub = await EventSubscriber.open(this.main, filter).catch(() => undefined);
        return sub && { kind, filter, sub };
      }),
    );
    return { initial, subs: opened.filter((x) => x !== undefined) };
  }

  /** One round while a scenario runs, until `until` resolves; `level` tells the load at each operation's sending. */
  async round(
    scenario: string,
    prepared: PreparedRound,
    level: () => number,
    until: Promise<void>,
    eventTimeoutMs = 0,
  ): Promise<RegisterRound> {
    if (prepared.note) {
      await until;
      return { scenario, operations: 0, failed: 0, verdict: 'unknown', note: prepared.note };
    }
    const path = attrPath(this.register.path, this.register.name);
    const { initial, subs } = prepared;
    const ops: RegisterOperation[] = [];
    const levels: number[] = [];
    let stop = false;
    void until.then(() => (stop = true));
    const registerSessions = this.sibling ? this.sessions.slice(0, -1) : this.sessions;
    const worker = async (c: BmcClient, i: number): Promise<void> => {
      let turn = i;
      while (!stop && ops.length < MAX_REGISTER_OPS) {
        const write = turn++ % 2 === 0;
        const value = write ? this.nextValue() : undefined;
        const endpoint = write ? undefined : this.reads[this.readTurn++ % this.reads.length]!;
        const read = endpoint && readOn(endpoint, this.register.path, this.register.name);
        levels.push(level());
        const invokedAt = performance.now();
        const op: RegisterOperation = {
          client: `s${i + 1}`,
          kind: write ? 'write' : 'read',
          ...(endpoint && { endpoint }),
          value,
          invokedAt,
          returnedAt: Infinity,
          ok: false,
        };
        ops.push(op);
        try {
          const res = read ? await c.get(read.url) : await c.put(path, value);
          op.returnedAt = performance.now();
          if (read) op.value = read.value(dataOf(res));
          op.ok = res.status === 200 && (write || op.value !== undefined);
        } catch {
          // No answer: a write stays pending (ambiguous), a read observed nothing.
        }
      }
    };
    const siblingWriter = async (c: BmcClient): Promise<void> => {
      const path2 = attrPath(this.sibling!.path, this.sibling!.name);
      while (!stop && ops.length < MAX_REGISTER_OPS) await c.put(path2, this.sibling!.next()).catch(() => undefined);
    };
    await Promise.all([
      ...registerSessions.map((c, i) => worker(c, i)),
      ...(this.sibling ? [siblingWriter(this.sessions[this.sessions.length - 1]!)] : []),
      until,
    ]);
    const round = judgeRound(scenario, { initial, operations: ops }, levels);
    if (subs.length === 0) return round;
    try {
      const deadline = performance.now() + eventTimeoutMs;
      const judge = (): StreamCount[] =>
        subs.map(({ kind, filter, sub }) => ({
          ...judgeStream(kind, filter, ops, sub.events, this.register.path, this.register.name),
          ...(sub.closed && { closed: true as const }),
        }));
      let streams = judge();
      // Events still on their way: wait for them up to the event timeout, and no longer.
      while (streams.some((x) => x.lost > 0 && !x.closed) && performance.now() < deadline) {
        await sleep(20);
        streams = judge();
      }
      const firstRps = levels[levels.length - 1] ?? 0;
      const byPath = streams.find((x) => x.kind === 'paths' && !x.closed);
      return { ...round, ...(byPath && { events: { ...eventCount(byPath), firstRps } }), streams };
    } finally {
      await Promise.all(subs.map((x) => x.sub.close()));
    }
  }

  /** Logs the sessions out and puts the register's first value back (and reads it back). */
  async close(): Promise<RestoreResult[]> {
    await Promise.all(this.sessions.map((s) => s.logout().catch(() => undefined)));
    await Promise.all(this.sessions.map((s) => s.close().catch(() => undefined)));
    return this.written > 0 ? restoreOriginals(this.main, [this.register]) : [];
  }
}

export function judgeRound(scenario: string, history: RegisterHistory, levels: readonly number[]): RegisterRound {
  const base = { scenario, operations: history.operations.length, failed: history.operations.filter((o) => !o.ok).length };
  const result = checkLinearizability(history);
  if (result.linearizable === true) return { ...base, verdict: 'linearizable' };
  if (result.linearizable === 'unknown') return { ...base, verdict: 'unknown', note: result.reason };
  const shrunk = shrinkHistory(history);
  const firstIndex = Math.min(...shrunk.kept);
  const small = checkLinearizability(shrunk.history);
  return {
    ...base,
    verdict: 'not-linearizable',
    violation: {
      firstRps: levels[firstIndex] ?? 0,
      operations: shrunk.history.operations.length,
      replayKey: replayKey(shrunk.history),
      svg: timelineSvg(shrunk.history, small, { title: `Register history under load (${scenario}), shrunk` }),
      history: shrunk.history,
    },
  };
}
