/**
 * Single-register linearizability under load (load --verify): N sessions of their own PUT and GET
 * one declared writable attribute (the register) back to back while a scenario runs, and each
 * operation's invocation and response times (performance.now()) and values are recorded. When the
 * register's object has a second declared writable, one more session writes that one meanwhile: two
 * writers of one object, where a lost update shows. After the scenario the history is checked; a
 * failing one is shrunk to a minimal history for the report. The register's value is put back and
 * read back at the end of the run.
 */
import { dataOf } from '../../client/answer.js';
import type { BmcClient } from '../../client/http.js';
import type { RestoreResult } from '../write-mix.js';
import { attrPath, restoreOriginals } from '../write-mix.js';
import type { ValueCycle } from '../values.js';
import type { RegisterHistory, RegisterOperation } from './history.js';
import { checkLinearizability } from './linearizability.js';
import { countEvents, type EventCount } from './register-events.js';
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
  /** The verifier's subscription on the register's path (a register with distinct values only). */
  events?: EventCount & { firstRps: number };
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

export class RegisterVerifier {
  private written = 0;

  private constructor(
    private readonly main: BmcClient,
    private readonly sessions: BmcClient[],
    private readonly register: ValueCycle,
    private readonly sibling: ValueCycle | undefined,
  ) {}

  /** Logs N sessions in (forks of the run's client: same target, their own cookies). */
  static async open(client: BmcClient, register: ValueCycle, sibling: ValueCycle | undefined, n: number): Promise<RegisterVerifier> {
    const sessions = Array.from({ length: n + (sibling ? 1 : 0) }, () => client.fork());
    await Promise.all(sessions.map((s) => s.login()));
    return new RegisterVerifier(client, sessions, register, sibling);
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
   * Before a scenario starts, on a quiet target: the register's value, and the verifier's
   * subscription on its path when events are judged (a register with distinct values only).
   */
  async prepare(eventTimeoutMs?: number): Promise<{ initial: unknown; sub?: EventSubscriber; note?: string }> {
    const res = await this.main.get(attrPath(this.register.path, this.register.name));
    if (res.status !== 200) return { initial: undefined, note: `the register's GET answered ${res.statusLine}` };
    const initial = dataOf(res);
    const sub =
      eventTimeoutMs !== undefined && typeof initial === 'string'
        ? await EventSubscriber.open(this.main, { paths: [this.register.path] }).catch(() => undefined)
        : undefined;
    return { initial, ...(sub && { sub }) };
  }

  /** One round while a scenario runs, until `until` resolves; `level` tells the load at each operation's sending. */
  async round(
    scenario: string,
    prepared: { initial: unknown; sub?: EventSubscriber; note?: string },
    level: () => number,
    until: Promise<void>,
    eventTimeoutMs = 0,
  ): Promise<RegisterRound> {
    if (prepared.note) {
      await until;
      return { scenario, operations: 0, failed: 0, verdict: 'unknown', note: prepared.note };
    }
    const path = attrPath(this.register.path, this.register.name);
    const { initial, sub } = prepared;
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
        levels.push(level());
        const invokedAt = performance.now();
        const op: RegisterOperation = {
          client: `s${i + 1}`,
          kind: write ? 'write' : 'read',
          value,
          invokedAt,
          returnedAt: Infinity,
          ok: false,
        };
        ops.push(op);
        try {
          const res = write ? await c.put(path, value) : await c.get(path);
          op.returnedAt = performance.now();
          op.ok = res.status === 200 && (write || dataOf(res) !== undefined);
          if (!write) op.value = dataOf(res);
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
    if (!sub) return round;
    try {
      const deadline = performance.now() + eventTimeoutMs;
      let count = countEvents(ops, sub.events, this.register.path, this.register.name);
      while (count.lost > 0 && performance.now() < deadline && !sub.closed) {
        await sleep(20);
        count = countEvents(ops, sub.events, this.register.path, this.register.name);
      }
      return { ...round, events: { ...count, firstRps: levels[levels.length - 1] ?? 0 } };
    } finally {
      await sub.close();
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
