/**
 * Checks that need a particular writable look through every named one before going NOT_TESTED:
 * with a single-attribute object named first, a partial object PUT is still judged (RULE-3).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parseWritable } from '../../runner/config.js';
import { runConformance } from '../../runner/run.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const ROOT = '/xyz/mgmt_project';
// The LED group has one attribute (no partial map can be formed); the system object has ten.
const WRITABLE = [`${ROOT}/led/groups/enclosure_identify:Asserted`, `${ROOT}/inventory/system:AssetTag`].map((w) => parseWritable(w)!);

async function rule3(faults: string[]): Promise<{ verdict: string; reason?: string }> {
  const out = await mkdtemp(join(tmpdir(), 'bmc-strength-'));
  try {
    const { results } = await runConformance(
      testRunOptions(out, {
        writable: WRITABLE,
        faults,
        only: ['writes'],
        requirements: ['RULE-3'],
      }),
    );
    return results.requirements.find((r) => r.id === 'RULE-3')!;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

test(
  'a partial PUT accepted is caught although the first named writable has one attribute',
  async () => {
    const caught = await rule3(['put-partial-accepted']);
    expect(caught.verdict).toBe('FAIL');
    expect(caught.reason).toMatch(/inventory\/system with only AssetTag/);
    expect((await rule3([])).verdict).toBe('PASS');
  },
  hangAfter(60_000),
);
