/**
 * Whole-tree effects read object by object (`--tree-snapshot objects`, what a run plans where the
 * target's enumerate costs more than its objects read one by one): every collateral fault of the
 * catalogue still fails its requirement, and the same checks pass on the clean simulator.
 */
import { describe, expect, test } from 'vitest';
import type { Area } from '../../catalogue/requirements.js';
import { runConformance, type RunOutcome } from '../../runner/run.js';
import { EFFECT_FAULTS } from '../../simulator/faults-effects.js';
import { testRunOptions } from '../support/run-options.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('bmc-tree-objects-');

/** The area whose checks watch the whole tree for each requirement. */
const AREA: Readonly<Record<string, Area>> = {
  'EP-8': 'writes',
  'EP-9': 'writes',
  'EP-10': 'actions',
  'EP-11': 'delete',
  'RULE-7': 'upload',
  'ACT-1': 'actions',
};

const collateral = EFFECT_FAULTS.filter((f) => f.operator === 'collateral' && AREA[f.requirement] !== undefined);

/** One in-process run (lean: the suites' vitest is shared between runs), its tree read object by object. */
async function objectsRun(only: Area[], requirements: string[], faults: string[] = []): Promise<RunOutcome> {
  return runConformance(
    testRunOptions(await dir(), { treeSnapshot: 'objects', only, requirements, faults, allowFactoryReset: true, seed: 7 }),
  );
}

const verdictOf = (outcome: RunOutcome, id: string) => outcome.results.requirements.find((r) => r.id === id);

describe('whole-tree effects read object by object', () => {
  test('the collateral faults cover every requirement whose checks watch the whole tree', () => {
    expect(new Set(collateral.map((f) => f.requirement))).toEqual(new Set(Object.keys(AREA)));
  });

  test.for(collateral.map((f) => [f.name, f.requirement] as const))('%s fails %s', async ([fault, requirement]) => {
    const outcome = await objectsRun([AREA[requirement]!], [requirement], [fault]);
    const r = verdictOf(outcome, requirement);
    expect(r?.verdict, JSON.stringify(r)).toBe('FAIL');
  });

  test('the clean simulator passes the same checks, and the run reads the tree object by object', async () => {
    const ids = Object.keys(AREA);
    const outcome = await objectsRun([...new Set(Object.values(AREA))], ids);
    for (const id of ids) expect(verdictOf(outcome, id)?.verdict, id).toBe('PASS');
    expect(outcome.results.treeReads?.plan?.treeSnapshot).toBe('objects');
    // Every snapshot was read object by object: the one enumerate is the runner's, which timed the route.
    expect(outcome.results.treeReads?.enumerate).toBe(1);
    expect(outcome.results.treeReads!.list).toBeGreaterThan(10);
  });
});
