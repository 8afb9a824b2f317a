/**
 * Whole-tree effects read object by object (`--tree-snapshot objects`, what a run plans where the
 * target's enumerate costs more than its objects read one by one): every collateral fault of the
 * catalogue still fails its requirement, and the same checks pass on the clean simulator.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Results } from '../../client/results.js';
import { EFFECT_FAULTS } from '../../simulator/faults-effects.js';
import { cli } from '../support/cli.js';
import { tempDirs } from '../support/temp-dirs.js';

const dir = tempDirs('bmc-tree-objects-');

/** The area whose checks watch the whole tree for each requirement. */
const AREA: Readonly<Record<string, string>> = {
  'EP-8': 'writes',
  'EP-9': 'writes',
  'EP-10': 'actions',
  'EP-11': 'delete',
  'RULE-7': 'upload',
  'ACT-1': 'actions',
};

const collateral = EFFECT_FAULTS.filter((f) => f.operator === 'collateral' && AREA[f.requirement] !== undefined);

async function verdicts(args: string[]): Promise<{ results: Results; stdout: string }> {
  const out = await dir();
  const ran = await cli(['run', '--tree-snapshot', 'objects', '--seed', '7', '--out', out, ...args]);
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as Results;
  return { results, stdout: ran.stdout };
}

const verdictOf = (results: Results, id: string) => results.requirements.find((r) => r.id === id)?.verdict;

describe('whole-tree effects read object by object', () => {
  test('the collateral faults are each found (one per requirement and more)', () => {
    expect(new Set(collateral.map((f) => f.requirement))).toEqual(new Set(Object.keys(AREA)));
  });

  test.concurrent.for(collateral.map((f) => [f.name, f.requirement] as const))('%s fails %s', async ([fault, requirement]) => {
    const { results, stdout } = await verdicts(['--only', AREA[requirement]!, '--requirements', requirement, '--fault', fault]);
    expect(verdictOf(results, requirement), stdout).toBe('FAIL');
  });

  test('the clean simulator passes the same checks, and the run says how it read the tree', async () => {
    const ids = Object.keys(AREA);
    const { results, stdout } = await verdicts(['--only', [...new Set(Object.values(AREA))].join(','), '--requirements', ids.join(',')]);
    for (const id of ids) expect(verdictOf(results, id), `${id}\n${stdout}`).toBe('PASS');
    expect(results.treeReads?.plan?.treeSnapshot).toBe('objects');
    // Every snapshot was read object by object: the one enumerate is the runner's, which timed the route.
    expect(results.treeReads?.enumerate).toBe(1);
    expect(results.treeReads!.list).toBeGreaterThan(10);
    expect(stdout).toMatch(/snapshots by object/);
  });
});
