/** The fault model is complete (every requirement × operator pair decided) and agrees with the faults. */
import { describe, expect, test } from 'vitest';
import { DEFAULT_REASONS, FAULT_MODEL, KNOWN_GAPS, decide } from '../../catalogue/fault-model.js';
import { OPERATOR_NAMES } from '../../catalogue/operators.js';
import { REQUIREMENTS, isRequirementId } from '../../catalogue/requirements.js';
import { FAULTS } from '../../simulator/faults.js';
import { faultCoverage } from '../../runner/mutation/fault-coverage.js';

describe('fault model', () => {
  test('every MUST and SAFETY requirement has an entry, and every entry names one', () => {
    const failable = REQUIREMENTS.filter((r) => r.level !== 'OBSERVE').map((r) => r.id);
    expect(Object.keys(FAULT_MODEL).sort()).toEqual([...failable].sort());
    for (const id of Object.keys(FAULT_MODEL)) expect(isRequirementId(id), id).toBe(true);
  });

  test('every requirement × operator pair is decided: it applies, or a reason says why not', () => {
    for (const req of REQUIREMENTS) {
      for (const op of OPERATOR_NAMES) {
        const d = decide(req, op);
        if (!d.applies) expect(d.why.length, `${req.id} × ${op}`).toBeGreaterThan(20);
      }
    }
    expect(Object.keys(DEFAULT_REASONS).sort()).toEqual([...OPERATOR_NAMES].sort());
  });

  test('an operator that applies is not also given a reason, and operators are listed once', () => {
    for (const [id, m] of Object.entries(FAULT_MODEL)) {
      expect(new Set(m.applies).size, id).toBe(m.applies.length);
      for (const op of m.applies) expect(m.cannot?.[op], `${id} × ${op}`).toBeUndefined();
    }
  });

  test('every fault breaks its requirement by an operator the model says applies', () => {
    expect(faultCoverage().misplaced).toEqual([]);
  });

  test('every applying pair is realised by a fault, or named as a known gap', () => {
    const coverage = faultCoverage();
    expect(coverage.unnamedGaps).toEqual([]);
    expect(coverage.staleGaps).toEqual([]);
  });

  test('coverage reads the faults: a fault removed opens a gap, a misplaced one is found', () => {
    const withoutOne = faultCoverage(FAULTS.filter((f) => f.name !== 'refusal-leaks-data'));
    expect(withoutOne.unnamedGaps).toContain('AUTH-5 × leak');
    const misplaced = faultCoverage([...FAULTS, { name: 'x', requirement: 'AUTH-5', operator: 'reorder', description: 'x' }]);
    expect(misplaced.misplaced.map((m) => m.fault)).toEqual(['x']);
  });

  test('known gaps are few and each is a pair that applies', () => {
    for (const [id, op] of KNOWN_GAPS) expect(FAULT_MODEL[id]?.applies, `${id} × ${op}`).toContain(op);
  });
});
