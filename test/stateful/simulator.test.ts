/**
 * The stateful area against the embedded simulator, as a lab runs it (`run --only stateful`): the
 * clean simulator passes; a fault's finding shows its shrunk sequence in results.json, and its
 * replay key with the run's seed reproduces it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runConformance, type RunOutcome } from '../../runner/run.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const SEED = 20261123;
const dirs: string[] = [];

/** `requirements`: only the checks naming them run (a replay needs only the check its key names). */
async function statefulRun(faults: string[], replay?: string, requirements?: string[]): Promise<RunOutcome> {
  const out = await mkdtemp(join(tmpdir(), 'bmc-stateful-'));
  dirs.push(out);
  if (replay) process.env.BMC_FUZZ_PATH = replay;
  try {
    return await runConformance(
      testRunOptions(out, {
        allowFactoryReset: true,
        faults,
        only: ['stateful'],
        requirements,
        seed: SEED,
        statefulRuns: 3,
        eventTimeoutMs: 1500,
        quietWindowMs: 200,
      }),
    );
  } finally {
    delete process.env.BMC_FUZZ_PATH;
  }
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const verdicts = (o: RunOutcome) =>
  Object.fromEntries(o.results.requirements.filter((r) => r.verdict !== 'NOT_TESTED').map((r) => [r.id, r.verdict]));
const observation = (o: RunOutcome, key: string) => o.results.observations.filter((x) => x.key === key);

describe('stateful area on the simulator', () => {
  test(
    'the clean simulator passes every stateful check, and each says how much it ran',
    async () => {
      const run = await statefulRun([]);
      expect(Object.values(verdicts(run)).filter((v) => v !== 'PASS')).toEqual([]);
      for (const key of ['stateful-values', 'stateful-versions', 'stateful-credentials']) {
        const [stats] = observation(run, `stateful ${key}`);
        expect(stats, key).toBeDefined();
        expect((stats!.value as { sequences: number }).sequences).toBeGreaterThanOrEqual(3);
        expect((stats!.value as { requests: number }).requests).toBeGreaterThan(0);
      }
      expect(observation(run, 'sequences not judged to their end')).toEqual([]);
    },
    hangAfter(120_000),
  );

  test(
    'a deleted version one ancestor still enumerates, and a logged-out cookie a later login revives, are found under their own requirements',
    async () => {
      const run = await statefulRun(['delete-lingers-in-root-enumerate', 'session-id-reused']);
      expect(verdicts(run)['EP-7']).toBe('FAIL');
      expect(verdicts(run)['EP-2']).toBe('FAIL');
      expect(Object.entries(verdicts(run)).filter(([id, v]) => v === 'FAIL' && id !== 'EP-7' && id !== 'EP-2')).toEqual([]);
      const reasons = Object.fromEntries(run.results.requirements.map((r) => [r.id, r.reason ?? '']));
      expect(reasons['EP-7']).toMatch(/GET \/xyz\/mgmt_project\/enumerate still maps \/xyz\/mgmt_project\/software\//);
      expect(reasons['EP-2']).toMatch(
        /the login of [A-Z] was issued the session cookie of [A-Z], logged out before|logged out before a later login\) is taken on HTTP/,
      );
    },
    hangAfter(120_000),
  );

  test(
    'a finding names its shrunk sequence and its replay key, and the key reproduces it',
    async () => {
      const run = await statefulRun(['logout-ends-newest-session']);
      expect(verdicts(run)['EP-2']).toBe('FAIL');
      expect(Object.entries(verdicts(run)).filter(([id, v]) => v === 'FAIL' && id !== 'EP-2')).toEqual([]);
      const reason = run.results.requirements.find((r) => r.id === 'EP-2')!.reason!;
      const key = /BMC_FUZZ_PATH=(stateful-credentials\/EP-2:[\d:]+)/.exec(reason)?.[1];
      expect(reason).toMatch(
        /^A's cookie after its logout is taken on HTTP .* — after \d step\(s\): 1\. log in as A, sending session cookies the client made up \(\$CHOSEN_A\); 2\. log in as B;/,
      );
      expect(key).toBeDefined();
      const [finding] = observation(run, 'stateful finding');
      const steps = (finding!.value as { steps: Array<{ step: string; curl: string[] }> }).steps;
      expect(steps.at(-1)!.step).toMatch(/log out A \(the oldest of 2 live sessions\)/);
      expect(steps.at(-1)!.curl.join('\n')).toMatch(/-X POST -b "\$COOKIE_A" .*\/logout/);
      // No secret in the report: the password and the cookies are shell variables.
      expect(JSON.stringify(run.results)).not.toContain('0penBmc');

      const again = await statefulRun(['logout-ends-newest-session'], key, ['EP-2']);
      expect(verdicts(again)['EP-2']).toBe('FAIL');
      const [stats] = observation(again, 'stateful stateful-credentials');
      expect((stats!.value as { replayed?: string; sequences: number }).replayed).toBe(key);
      const [replayed] = observation(again, 'stateful finding');
      expect((replayed!.value as { steps: Array<{ step: string }> }).steps.map((s) => s.step)).toEqual(steps.map((s) => s.step));
    },
    hangAfter(180_000),
  );
});
