/**
 * The run's watcher: one subscription with the empty filter, on the run's own session, open from
 * the first check of the run to the events oracle at its end. Every change any area makes, and
 * every event the target pushes for a change that never happened (a refused write, a write of the
 * current value), reaches it, whichever area is running: the events oracle judges what it
 * received (event-oracle.ts). A target that closes it gets it opened again at the next check.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSubscriber } from '../../client/subscriber.js';
import { messageOf } from '../../client/errors.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { sharedClient } from './session.js';

export const WATCHER_ROLE = "the run's watcher";

/** Openings tried in one run: a target that closes it at once is not asked forever. */
const MAX_OPENINGS = 4;

let sub: EventSubscriber | undefined;
let openings = 0;
let opening: Promise<void> | undefined;
let problem: string | undefined;
let stopped = false;
/** The target closed the empty filter without a message: the watcher lists the namespace instead. */
let emptyRefused = false;

forgetEachRun(() => {
  void sub?.close();
  sub = opening = problem = undefined;
  openings = openedAt = 0;
  stopped = emptyRefused = false;
});

/**
 * Opens the watcher if it is not open (at most a few times a run); never throws. `root` is the
 * namespace (`/xyz/{ns}`): a target that closes the empty filter at once (one bmcweb wants paths)
 * is watched through a filter listing it, which a server matching subtrees admits everything of.
 */
export async function keepWatching(root: string): Promise<void> {
  if (stopped || (sub && !sub.closed) || openings >= MAX_OPENINGS) return;
  if (sub && sub.events.length === 0 && sub.closedAt !== undefined && !(sub.closedAt > openedAt + EMPTY_CLOSE_MS)) emptyRefused = true;
  opening ??= open(root).finally(() => (opening = undefined));
  await opening;
}

/** A watcher closed this soon after opening, having received nothing, was refused its filter. */
const EMPTY_CLOSE_MS = 1_000;
let openedAt = 0;

async function open(root: string): Promise<void> {
  openings++;
  try {
    // The run's session: a BMC keeps few, and the watcher needs none of its own.
    const filter = emptyRefused ? { paths: [root] } : {};
    sub = await EventSubscriber.open(sharedClient(), filter, { role: `${WATCHER_ROLE} ${JSON.stringify(filter)}` });
    openedAt = performance.now();
    problem = undefined;
  } catch (err) {
    problem = messageOf(err);
  }
}

/**
 * Ends the watcher once `settled()` holds or `deadlineMs` (performance.now()) passes (the session is
 * the run's, ended with it). Returns why it never opened, if it did not.
 */
export async function stopWatching(settled: () => boolean, deadlineMs: number): Promise<string | undefined> {
  stopped = true;
  await opening;
  while (sub && !sub.closed && !settled() && performance.now() < deadlineMs)
    await sleep(Math.min(50, Math.max(1, deadlineMs - performance.now())));
  await sub?.close();
  return openings === 0 ? 'the run opened no check' : problem;
}
