/**
 * Known deviations and the trace a run leaves: a profile naming exactly the faults' requirements
 * makes them XFAIL and the run exit 0; a deviation that disappeared is XPASS (a failure only when
 * strict); a safe run leaves the target as it found it, and says so when a restore did not take.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadTargetProfile, type TargetProfile } from '../../runner/target-profile.js';
import { runConformance, type RunOptions, type RunOutcome } from '../../runner/run.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';
import { tempDirs } from '../support/temp-dirs.js';

const tempDir = tempDirs('bmc-hw-');

async function embeddedRun(opts: Partial<RunOptions>): Promise<RunOutcome> {
  return runConformance(
    testRunOptions(await tempDir(), {
      seed: 20261123,
      fuzzRuns: 40,
      ...opts,
    }),
  );
}

describe("a profile naming the faults' requirements", () => {
  let profile: TargetProfile;
  const faults = ['post-create-405', 'delete-nondeletable-404', 'attr-case-insensitive'];
  beforeAll(async () => {
    const file = join(await tempDir(), 'lab.json');
    await writeFile(
      file,
      JSON.stringify({
        platform: 'lab platform',
        expected: {
          'RULE-4': { reason: 'answers 405 to a creating POST', source: 'lab ticket 1' },
          'RULE-5': 'answers 404 to a DELETE it refuses',
          'OBJ-8': 'matches attribute names in any case',
        },
      }),
    );
    profile = await loadTargetProfile(file);
  });
  const only: RunOptions['only'] = ['objects', 'actions', 'delete'];

  test(
    'exits 0 with exactly those requirements XFAIL, each with its recorded reason',
    async () => {
      const run = await embeddedRun({ faults, targetProfile: profile, only });
      expect(run.exitCode).toBe(0);
      const xfail = Object.fromEntries(run.results.requirements.filter((r) => r.verdict === 'XFAIL').map((r) => [r.id, r.expected]));
      expect(xfail).toEqual({
        'RULE-4': 'answers 405 to a creating POST [lab ticket 1]',
        'RULE-5': 'answers 404 to a DELETE it refuses',
        'OBJ-8': 'matches attribute names in any case',
      });
      expect(run.results.summary.FAIL).toBe(0);
      // results.json names the file the deviations came from, with its digest (an attestation signs it).
      const sha256 = createHash('sha256')
        .update(await readFile(profile.file))
        .digest('hex');
      expect(run.results.expectations).toEqual({ file: profile.file, platform: 'lab platform', files: [{ file: profile.file, sha256 }] });
    },
    hangAfter(60_000),
  );

  test(
    'a deviation that no longer fails is XPASS: flagged, a failure of the run only when strict',
    async () => {
      const run = await embeddedRun({ faults: faults.slice(0, 2), targetProfile: profile, only });
      expect(run.exitCode).toBe(0);
      const obj8 = run.results.requirements.find((r) => r.id === 'OBJ-8')!;
      expect(obj8.verdict).toBe('XPASS');
      expect(obj8.reason).toMatch(/expected to fail \(matches attribute names in any case\) but now PASS/);
      // Strict, the same XPASS alone fails the run: only its requirement is judged, so nothing else can.
      const strict = await embeddedRun({
        faults: faults.slice(0, 2),
        targetProfile: profile,
        only: ['objects'],
        requirements: ['OBJ-8'],
        strictExpectations: true,
      });
      expect(strict.results.requirements.filter((r) => r.verdict !== 'NOT_TESTED').map((r) => [r.id, r.verdict])).toEqual([
        ['OBJ-8', 'XPASS'],
      ]);
      expect(strict.exitCode).toBe(1);
    },
    hangAfter(60_000),
  );
});

describe('leave no trace', () => {
  test(
    'a safe run leaves enumerate as it found it (counters and clocks aside) and logs out of every session',
    async () => {
      const run = await embeddedRun({ profile: 'safe', only: ['auth', 'objects', 'listings', 'writes', 'events', 'errors'] });
      const trace = run.results.trace!;
      expect(trace.compared).toBe(true);
      expect(trace.lines).toEqual([]);
      expect(trace.verdict).toBe('PASS');
      expect(trace.sessions.opened).toBeGreaterThan(1);
      expect(trace.sessions.closed).toBe(trace.sessions.opened);
      expect(run.exitCode).toBe(0);
    },
    hangAfter(90_000),
  );

  test(
    'a restore the target does not take is reported by path and attribute, and fails a safe run',
    async () => {
      const run = await embeddedRun({ profile: 'safe', faults: ['restore-skipped'], only: ['writes'], requirements: ['EP-8'] });
      const trace = run.results.trace!;
      expect(trace.verdict).toBe('FAIL');
      expect(trace.changed).toContainEqual({
        path: '/xyz/mgmt_project/inventory/system',
        attribute: 'AssetTag',
        before: 'ASSET-0001',
        after: 'ASSET-0001-bmcc',
      });
      expect(trace.lines.join('\n')).toMatch(
        /\/xyz\/mgmt_project\/inventory\/system AssetTag: "ASSET-0001" before the run, "ASSET-0001-bmcc" after/,
      );
      expect(run.exitCode).toBe(1);
    },
    hangAfter(60_000),
  );
});
