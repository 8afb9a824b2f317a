/**
 * What a check records and the results carry, shared by the suites (which record it), the runner
 * (whose verdict reporter reads it) and the reports (which write it): below all three.
 */
import type { Exchange as EvidenceEntry } from './evidence.js';
import type { SessionCounts } from './session-ledger.js';
// Types only (erased): the augmentation of vitest's TaskMeta below needs vitest's declarations in view.
import type {} from 'vitest';

export interface Observation {
  requirement: string;
  key: string;
  value: unknown;
}

/** A failure or a warning, and the one requirement it is about. */
export interface Finding {
  requirement: string;
  message: string;
}

export interface CheckMeta {
  requirements: string[];
  /** Failures, each attributed to the requirement it breaks. */
  failures: Finding[];
  warnings: Finding[];
  observations: Observation[];
  /**
   * Why the requirements without a failure of their own were not judged to the end: the test
   * stopped at another requirement's failure, or at a prerequisite another requirement owns.
   */
  unjudged?: string;
  /** Why a change the check made could not be undone, when it could not. */
  restoreFailure?: string;
  /** Sessions the suites opened and closed so far (this thread's count, after this test). */
  sessions?: SessionCounts;
  evidence?: EvidenceEntry[];
}

/** `check()` stores its CheckMeta in the vitest task's meta; the verdict reporter reads it there. */
declare module 'vitest' {
  interface TaskMeta {
    bmc?: CheckMeta;
  }
}

/** JSON.stringify replacer: a bigint (a 64-bit value read losslessly) is written as its digits. */
export function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
