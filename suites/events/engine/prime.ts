/**
 * Priming: nothing acknowledges a filter, so a subscription is live only once it delivered a
 * change it admits. `prime` makes changes until every subscription has one, within a budget of
 * PRIME_ATTEMPTS rounds (and, where one is given, a time budget asked before each further write).
 *
 * One round is one write, waited for an event timeout. Once any subscription (or a bystander, a
 * live subscription that admits the change too) has it, the target did signal it and the others'
 * events are close behind: the wait shrinks to a quiet window. In the first round a lost event
 * gets its second chance soon after: one more write half a window on, whose window the ones still
 * waiting share with the first write's. Subscriptions that missed the change twice while others
 * had it are not live: their filters exclude it.
 */
import type { EventPredicate, ReceivedEvent } from '../../../client/subscriber.js';
import { recordLatency } from '../../harness/pace.js';
import type { EventSocket, Subscription } from './subscription.js';
import { nextMessage, quietLeft, type EventTimes } from './waits.js';

/** Priming rounds tried before a subscription is declared not live. */
export const PRIME_ATTEMPTS = 3;

/** One priming change: when its request was sent (performance.now()), and which events carry it. */
export interface PrimeWrite {
  at: number;
  carries: EventPredicate;
}

export interface PrimeOptions {
  /** Makes one priming change; undefined when it did not take (nothing to wait for). */
  write: () => Promise<PrimeWrite | undefined>;
  /** Live subscriptions that admit the changes too: one of them having it shows the target signalled it. */
  bystanders?: readonly EventSocket[];
  /** Asked before every write after the first: false ends the priming, cut. */
  budget?: () => boolean;
}

export interface PrimeOutcome {
  /** The subscriptions that never delivered a priming change (none: all live). */
  notLive: Subscription[];
  /** Every priming change made, in order. */
  writes: PrimeWrite[];
  /** The time budget ended the priming before its rounds did. */
  cut?: boolean;
}

export async function prime(times: EventTimes, subscriptions: readonly Subscription[], opts: PrimeOptions): Promise<PrimeOutcome> {
  const pending = new Set(subscriptions.filter((s) => s.liveAt === undefined));
  const writes: PrimeWrite[] = [];
  let signalled = false;
  for (let round = 0; round < PRIME_ATTEMPTS && pending.size > 0; round++) {
    if (round > 0 && opts.budget && !opts.budget()) return { notLive: [...pending], writes, cut: true };
    const r = await primeRound(times, pending, opts, { first: round === 0, signalled });
    writes.push(...r.writes);
    signalled ||= r.signalled;
    if (r.writes.length === 0 || [...pending].some((s) => s.socket.closed)) break;
    const missedTwice = round >= 1 || r.writes.length > 1;
    if (missedTwice && (signalled || subscriptions.some((s) => s.liveAt !== undefined && !pending.has(s)))) break;
  }
  return { notLive: [...pending], writes };
}

/** One write (two in the first round), waited for by every pending subscription at once. */
async function primeRound(
  times: EventTimes,
  pending: Set<Subscription>,
  opts: PrimeOptions,
  round: { first: boolean; signalled: boolean },
): Promise<{ writes: PrimeWrite[]; signalled: boolean }> {
  const bystanders = opts.bystanders ?? [];
  const sockets = [...[...pending].map((s) => s.socket), ...bystanders];
  const marks = new Map(sockets.map((s) => [s, s.mark()]));
  const first = await opts.write();
  if (!first) return { writes: [], signalled: false };
  const writes = [first];
  const cause = (e: ReceivedEvent) => writes.find((w) => w.carries(e.data));
  const had = (socket: EventSocket) => socket.events.slice(marks.get(socket)).find((e) => cause(e));
  // A target whose events were seen already is waited for a window, not a whole event timeout.
  let deadline = performance.now() + (round.signalled ? Math.min(times.eventTimeoutMs, times.quietWindowMs) : times.eventTimeoutMs);
  let retryAt: number | undefined;
  let signalled = false;
  for (;;) {
    for (const s of pending) {
      const ev = had(s.socket);
      if (!ev) continue;
      recordLatency(ev.at - cause(ev)!.at);
      s.liveAt = ev.seq;
      pending.delete(s);
    }
    if (!signalled && (pending.size < sockets.length - bystanders.length || bystanders.some((b) => had(b)))) {
      signalled = true;
      if (round.first) [deadline, retryAt] = [Infinity, performance.now() + times.quietWindowMs / 2];
      else deadline = performance.now() + times.quietWindowMs;
    }
    if (pending.size === 0 || [...pending].every((s) => s.socket.closed)) break;
    if (retryAt !== undefined && performance.now() >= retryAt) {
      retryAt = undefined;
      const again = opts.budget && !opts.budget() ? undefined : await opts.write().catch(() => undefined);
      if (!again) break;
      writes.push(again);
      deadline = performance.now() + quietLeft(times.quietWindowMs, again.at);
      continue;
    }
    if (performance.now() >= deadline) break;
    await nextMessage(sockets, Math.min(deadline, retryAt ?? Infinity));
  }
  return { writes, signalled };
}
