/** What the catalogue says of each fault (simulator/faults*.ts). */
import type { Operator } from '../catalogue/operators.js';
import type { Area } from '../catalogue/requirements.js';

export interface FaultInfo {
  name: string;
  requirement: string;
  description: string;
  /** How the fault breaks its requirement (catalogue/operators.ts); the fault model pairs them. */
  operator: Operator;
  /**
   * Other requirements whose statement the fault breaks too, each with the reason: the mutation
   * self-test holds every other FAIL against the suites' precision.
   */
  knockOn?: Readonly<Record<string, string>>;
  /**
   * What the fault must produce for its requirement: FAIL; WARN for a deviation from what the spec
   * only shows; PASS for field behaviour the spec leaves open (no requirement may FAIL at all).
   */
  verdict?: 'FAIL' | 'WARN' | 'PASS';
  /**
   * The stateful area catches it: the mutation self-test runs that area (the costliest per run) for
   * these faults and the clean simulator only.
   */
  stateful?: true;
  /**
   * The area whose traffic reaches it when no area judging its requirement does (a refused write
   * only the writes area sends, seen by the run-wide oracle): the self-test's lean run is that area
   * whole, with the oracle behind it.
   */
  reachedBy?: Area;
}
