/**
 * Every wait on events, in one place. Deadlines are performance.now() instants; a wait ends at its
 * deadline or when what it waits for holds, re-judged on each message (a deadline may move when an
 * event arrives elsewhere: the target did signal the change). How long "no event" is watched for
 * is the learned pace's quiet window (harness/pace.ts).
 */
import { setMaxListeners } from 'node:events';
import type { EventPredicate } from '../../../client/subscriber.js';
import type { RunConfig } from '../../../runner/config.js';
import { quietLeft, quietSince, quietWindow } from '../../harness/pace.js';
import type { EventSocket, Subscription } from './subscription.js';

export { quietLeft, quietSince, quietWindow };

/** A pause on the global timer (which a test's fake clock replaces). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long an event may take, and the quiet window as the run's pace has it now. */
export interface EventTimes {
  readonly eventTimeoutMs: number;
  readonly quietWindowMs: number;
}

export function eventTimes(cfg: Pick<RunConfig, 'eventTimeoutMs' | 'quietWindowMs' | 'eventLatency'>): EventTimes {
  return {
    eventTimeoutMs: cfg.eventTimeoutMs,
    get quietWindowMs() {
      return quietWindow(cfg);
    },
  };
}

/** A message arrives within this at the latest, or the wait looks again: deadlines move. */
const LOOK_AGAIN_MS = 50;

/** Until the next message on any of `sockets`, a closed socket, or `until`, whichever is first. */
export async function nextMessage(sockets: readonly EventSocket[], until: number): Promise<void> {
  const ms = Math.min(LOOK_AGAIN_MS, Math.max(1, until - performance.now()));
  const open = sockets.filter((s) => !s.closed);
  if (open.length === 0) return void (await sleep(ms));
  await Promise.race(open.map((s) => s.waitFor(() => true, ms, { from: s.mark() }).catch(() => undefined)));
}

/** Waits until `done()` holds or `deadline()` passes, looking again on each message of `sockets`; says whether it held. */
export async function waitUntil(done: () => boolean, deadline: () => number, sockets: readonly EventSocket[]): Promise<boolean> {
  while (!done()) {
    if (performance.now() >= deadline()) return false;
    await nextMessage(sockets, deadline());
  }
  return true;
}

export interface Watch {
  subscription: Subscription;
  pred: EventPredicate;
  count: number;
  from: number;
}

/**
 * Several subscriptions that watched the same writes wait for their counts together: once one has
 * what it waited for, the others get one quiet window more, not a whole event timeout (the events
 * left the target together); that window also catches extras for all.
 */
export async function collectTogether(times: EventTimes, watches: readonly Watch[]): Promise<void> {
  const stop = new AbortController();
  // One listener per watched subscription, a dozen or more in the matrix: not a leak.
  setMaxListeners(Math.max(10, watches.length + 1), stop.signal);
  let first: Promise<void> | undefined;
  const waits = watches.map(async (w) => {
    try {
      await Promise.race([
        w.subscription.socket.waitForCount(w.pred, w.count, times.eventTimeoutMs, { from: w.from }),
        new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('the others are in')))),
      ]);
      first ??= sleep(times.quietWindowMs).then(() => stop.abort());
    } catch {
      // short of its count: judged by the checks
    }
  });
  await Promise.all(waits);
  await (first ?? sleep(times.quietWindowMs));
}
