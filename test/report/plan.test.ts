/** The coverage plan a run records: its parts from the observations where each is made, one digest for all. */
import { describe, expect, test } from 'vitest';
import { coveragePlan, PLAN_OBSERVATIONS, planText } from '../../client/plan.js';
import { READ_PLAN_OBSERVATION } from '../../client/results.js';

const reads = {
  key: READ_PLAN_OBSERVATION,
  value: { objects: 2, objectsInTree: 9, routes: 3, attributes: 7, strata: '2 of 5', digest: 'r1' },
};
const filters = { key: PLAN_OBSERVATIONS.filters, value: { cases: 2, ran: 2, names: ['only', 'all'], digest: 'f1' } };
const writes = { key: PLAN_OBSERVATIONS.writes, value: { cases: 8, ran: 5, digest: 'w1', detail: '1 writable' } };

describe('the coverage plan', () => {
  test('gathers every part, says how much of each ran, and digests the parts together', () => {
    const plan = coveragePlan([reads, filters, writes, { key: 'seed', value: 3 }])!;
    expect(Object.keys(plan.parts)).toEqual(['reads', 'writes', 'filters']);
    expect(plan.parts.filters).toEqual({ cases: 2, ran: 2, digest: 'f1', names: ['only', 'all'] });
    expect(planText(plan)).toBe(
      `reads 2 of 9 objects × 3 routes, 7 attributes, 2 of 5 kinds; write boundaries 5 of 8 (1 writable); event filters 2; digest ${plan.digest}`,
    );
    // Another filter shape, or one part fewer, is another plan; how much ran is not the plan.
    const other = { ...filters, value: { ...filters.value, names: ['only'], digest: 'f2' } };
    expect(coveragePlan([reads, other, writes])!.digest).not.toBe(plan.digest);
    expect(coveragePlan([reads, writes])!.digest).not.toBe(plan.digest);
    expect(coveragePlan([reads, filters, { ...writes, value: { ...writes.value, ran: 8 } }])!.digest).toBe(plan.digest);
    expect(coveragePlan([{ key: 'seed', value: 3 }])).toBeUndefined();
  });
});
