/**
 * The run's plan from what the target's whole-tree read costs: the leave-no-trace snapshot before
 * the suites is an enumerate of the namespace root, timed. Where it costs what a real BMC's does,
 * the checks whose every command reads the tree again (the stateful sequences) get the budget a
 * target gets, as on hardware: no sequence starts that would not end within it, and the first
 * always runs. A fast target keeps the simulator's plan: every sequence runs.
 */
import type { RunConfig } from './config.js';
import { DEFAULTS } from './settings.js';

/** A whole-tree enumerate at least this slow is a real BMC's (seconds); the simulator's takes milliseconds. */
export const COSTLY_ENUMERATE_MS = 1_000;

export interface ReadPlan {
  /** How long the enumerate of the namespace root took before the suites. */
  rootEnumerateMs: number;
  /** What the run changed for it, one sentence each (none: the plan as configured). */
  notes: string[];
}

/** Adjusts `cfg` for the measured cost and says what it changed. */
export function planReads(cfg: RunConfig, rootEnumerateMs: number): ReadPlan {
  const notes: string[] = [];
  if (rootEnumerateMs >= COSTLY_ENUMERATE_MS && cfg.statefulTimeMs === undefined) {
    cfg.statefulTimeMs = DEFAULTS.url.statefulTimeMs;
    notes.push(
      `a whole-tree enumerate takes ${(rootEnumerateMs / 1000).toFixed(1)} s: each stateful check gets a target's budget of ${
        cfg.statefulTimeMs! / 1000
      } s (--stateful-time)`,
    );
  }
  return { rootEnumerateMs: Math.round(rootEnumerateMs), notes };
}
