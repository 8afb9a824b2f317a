/**
 * The fault model (catalogue/fault-model.ts) read against the simulator's faults: which faults
 * realise each applying (requirement, operator) pair, and where the two disagree.
 */
import { KNOWN_GAPS, faultModelPairs } from '../../catalogue/fault-model.js';
import type { Operator } from '../../catalogue/operators.js';
import { FAULTS, type FaultInfo } from '../../simulator/faults.js';

export interface PairCoverage {
  id: string;
  operator: Operator;
  /** Faults of this requirement and operator that must FAIL (or WARN) it. */
  faults: string[];
  /** Named in KNOWN_GAPS. */
  knownGap: boolean;
}

export interface FaultCoverage {
  /** Every pair the model says applies, with the faults that realise it. */
  pairs: PairCoverage[];
  /** Faults whose (requirement, operator) the model says cannot apply. */
  misplaced: Array<{ fault: string; id: string; operator: Operator; why: string }>;
  /** Applying pairs with no fault that KNOWN_GAPS does not name. */
  unnamedGaps: string[];
  /** KNOWN_GAPS entries that have a fault by now, or that the model says cannot apply. */
  staleGaps: string[];
}

const key = (id: string, op: Operator) => `${id} × ${op}`;

/** Benign faults (verdict PASS) show field behaviour the spec leaves open: they break nothing. */
function breaking(f: FaultInfo): boolean {
  return (f.verdict ?? 'FAIL') !== 'PASS';
}

export function faultCoverage(faults: readonly FaultInfo[] = FAULTS): FaultCoverage {
  const decisions = faultModelPairs();
  const gaps = new Set(KNOWN_GAPS.map(([id, op]) => key(id, op)));
  const pairs = decisions
    .filter((p) => p.decision.applies)
    .map((p) => {
      const realising = faults.filter((f) => breaking(f) && f.requirement === p.id && f.operator === p.operator).map((f) => f.name);
      return { id: p.id, operator: p.operator, faults: realising, knownGap: gaps.has(key(p.id, p.operator)) };
    });
  const byKey = new Map(decisions.map((p) => [key(p.id, p.operator), p.decision]));
  const misplaced = faults.filter(breaking).flatMap((f) => {
    const d = byKey.get(key(f.requirement, f.operator));
    return d && !d.applies ? [{ fault: f.name, id: f.requirement, operator: f.operator, why: d.why }] : [];
  });
  return {
    pairs,
    misplaced,
    unnamedGaps: pairs.filter((p) => p.faults.length === 0 && !p.knownGap).map((p) => key(p.id, p.operator)),
    staleGaps: [...gaps].filter((g) => {
      const p = pairs.find((x) => key(x.id, x.operator) === g);
      return !p || p.faults.length > 0;
    }),
  };
}

/** Markdown: per requirement, each applying operator with its faults, or "gap". */
export function formatFaultCoverage(coverage: FaultCoverage, killed: ReadonlySet<string> = new Set()): string {
  const ids = [...new Set(coverage.pairs.map((p) => p.id))];
  const rows = ids.map((id) => {
    const cells = coverage.pairs
      .filter((p) => p.id === id)
      .map((p) =>
        p.faults.length === 0
          ? `${p.operator}: **gap**`
          : `${p.operator}: ${p.faults.map((f) => (killed.size === 0 || killed.has(f) ? f : `${f} (survived)`)).join(', ')}`,
      );
    return `| ${id} | ${cells.join('; ')} |`;
  });
  const covered = coverage.pairs.filter((p) => p.faults.length > 0).length;
  return [
    '| requirement | operators: faults |',
    '|---|---|',
    ...rows,
    '',
    `fault model: ${covered} of ${coverage.pairs.length} applying (requirement, operator) pairs realised by a fault; gaps: ${coverage.pairs.length - covered}`,
  ].join('\n');
}
