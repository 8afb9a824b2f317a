/**
 * Without --writable, a destructive run finds the conventional writables itself (proving each with
 * a write read back and restored) and tests the writes and events it can: at most 5 NOT_TESTED,
 * against the simulator and each field dialect as a target of its own. The simulator's run, every
 * area with its full reports, is also the project's check that no credential reaches any output.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { AREAS } from '../../catalogue/requirements.js';
import type { RunOutcome } from '../../runner/run.js';
import type { SimulatorOptions } from '../../simulator/index.js';
import { notTested, runAgainst } from './run.js';
import { hangAfter } from '../support/hang.js';

const PASSWORD = 'disc-Secret-7d2e';
/** Writing every report, a run takes longer than the lean runs beside it: only a hang may meet this. */
const WITH_REPORTS_MS = 240_000;

function expectWritablesFoundAndNothingLeft(outcome: RunOutcome): void {
  const found = outcome.results.discovered?.writable ?? [];
  expect(found.length).toBeGreaterThanOrEqual(2);
  // The read-only LED group was tried and refused, never used.
  expect(found.some((w) => w.includes('bmc_booted'))).toBe(false);
  expect(notTested(outcome).length, notTested(outcome).join('\n')).toBeLessThanOrEqual(5);
  expect(outcome.results.trace?.lines).toEqual([]);
}

describe('a destructive run without --writable against the simulator, with every report', () => {
  let outcome: RunOutcome;
  const printed: string[] = [];
  /** Each file of the run's output folder, read before the folder went. */
  const files = new Map<string, string>();
  beforeAll(async () => {
    // The project's tests, not a conformance run a CI job page should show.
    vi.stubEnv('GITHUB_STEP_SUMMARY', '');
    outcome = await runAgainst(
      { password: PASSWORD },
      { profile: 'destructive', password: PASSWORD, lean: false, print: (line) => void printed.push(line) },
      async (out) => {
        const entries = await readdir(out, { recursive: true, withFileTypes: true });
        for (const e of entries.filter((x) => x.isFile())) {
          const path = join(e.parentPath, e.name);
          files.set(path.slice(out.length + 1), await readFile(path, 'utf8'));
        }
      },
    );
  }, hangAfter(WITH_REPORTS_MS));
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  test('finds writables, says which, leaves nothing behind and leaves at most 5 requirements NOT_TESTED', () => {
    expectWritablesFoundAndNothingLeft(outcome);
  });

  test('every area ran, and no file of the run nor a line it printed holds the password or a session cookie', () => {
    // Every area, then the run-wide oracle.
    expect(printed.flatMap((l) => /^area (\S+): /.exec(l)?.[1] ?? [])).toEqual([...AREAS, 'oracle']);
    for (const name of ['results.json', 'junit.xml', 'summary.html', 'summary.md']) expect([...files.keys()]).toContain(name);
    // Each test's result, with its requests as steps: the exchanges of every area.
    expect([...files.keys()].filter((f) => f.startsWith('allure-results/')).length).toBeGreaterThan(AREAS.length);
    // The credentials were there to leak: the exchanges that carried them are kept, redacted.
    expect(files.get('results.json')).toContain('<redacted>');
    expect([...files].filter(([f, text]) => f.startsWith('allure-results/') && text.includes('<redacted>')).length).toBeGreaterThan(0);
    for (const [name, text] of [...files, ['printed lines', printed.join('\n')] as const]) {
      expect(text.includes(PASSWORD), `${name} holds the password`).toBe(false);
      expect(/sid=[0-9a-f]{16}/.test(text), `${name} holds a session cookie`).toBe(false);
    }
  });
});

// Side by side, each against a simulator of its own: a run mostly waits on its target's windows.
describe.concurrent.each<[string, SimulatorOptions]>([
  ['the phosphor-rest dialect', { dialect: 'phosphor-rest', eventLatencyMs: 100, uploadFailDelayMs: 300, requestMs: 0 }],
  ['the bmcweb dialect', { dialect: 'bmcweb', uploadFailDelayMs: 300 }],
])('a destructive run without --writable against %s', (_what, sim) => {
  test(
    'finds writables, says which, leaves nothing behind and leaves at most 5 requirements NOT_TESTED',
    async () => {
      expectWritablesFoundAndNothingLeft(await runAgainst(sim, { profile: 'destructive' }));
    },
    hangAfter(120_000),
  );
});

test(
  'a safe run without --writable writes nothing it was not given',
  async () => {
    const outcome = await runAgainst({}, { profile: 'safe', only: ['writes'] });
    expect(outcome.results.discovered).toBeUndefined();
    expect(notTested(outcome).some((r) => r.startsWith('EP-8: no safely writable attribute'))).toBe(true);
    expect(outcome.results.trace?.verdict).toBe('PASS');
  },
  hangAfter(60_000),
);
