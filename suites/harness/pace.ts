/**
 * The pace of the target's events, learned from the events of the run itself: how long "no event
 * arrives" must be watched for is half again the slowest event seen so far, never more than the
 * configured quiet window and never less than a floor. A fast target's run is not slowed by the
 * hardware defaults; a slow one's windows still cover its latency. The profile's expected latency
 * is the estimate before the first event.
 */
import type { RunConfig } from '../../runner/config.js';
import { forgetEachRun } from '../../client/run-scoped.js';

/** No quiet window is shorter: scheduling noise on a busy machine alone can take this long. */
const FLOOR_MS = 200;
/** A window covers the slowest event seen one and a half times, plus this. */
const MARGIN_MS = 250;

let slowest: number | undefined;
forgetEachRun(() => (slowest = undefined));

/** An event arrived `ms` after the write that caused it. */
export function recordLatency(ms: number): void {
  if (Number.isFinite(ms) && ms >= 0) slowest = Math.max(slowest ?? 0, ms);
}

/** The slowest event latency seen in this run, if any. */
export function slowestLatency(): number | undefined {
  return slowest;
}

/** Puts the learned pace back to `ms` (a test that fed it events of its own). */
export function resetLatency(ms: number | undefined): void {
  slowest = ms;
}

/** How long to watch that no (wrong) event arrives. */
export function quietWindow(cfg: Pick<RunConfig, 'quietWindowMs' | 'eventLatency'>): number {
  const estimate = slowest ?? cfg.eventLatency.expectedMs;
  if (estimate === undefined) return cfg.quietWindowMs;
  const bound = Math.min(cfg.quietWindowMs, cfg.eventLatency.maxMs ?? cfg.quietWindowMs);
  return Math.round(Math.min(cfg.quietWindowMs, Math.max(FLOOR_MS, Math.min(bound, 1.5 * estimate + MARGIN_MS))));
}

/**
 * How long is left of the quiet window of an action taken at `since` (performance.now()): its
 * events, late ones and wrong ones alike, arrive within the window of the action, not of the
 * moment the wait begins, so whatever was waited for since counts towards it. Still, at least the
 * floor from now: an event a target holds back until its successor arrives moments after the last.
 */
export function quietLeft(windowMs: number, since: number): number {
  const now = performance.now();
  return Math.max(since + windowMs, now + Math.min(windowMs, FLOOR_MS)) - now;
}

/** Waits out what is left of the quiet window of an action taken at `since` (see quietLeft). */
export async function quietSince(cfg: Pick<RunConfig, 'quietWindowMs' | 'eventLatency'>, since: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, quietLeft(quietWindow(cfg), since)));
}
