/**
 * Two runs into one folder, the first against the embedded simulator (as `npm start`), the second
 * against a stand-in simulator on its own port: the second is not compared with the first, and
 * every output says why instead of listing the targets' differences as changes.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { runConformance } from '../../runner/run.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';
import { temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
let standIn: { url: string; close(): Promise<void> };

beforeAll(async () => {
  vi.stubEnv('GITHUB_STEP_SUMMARY', '');
  standIn = await startSimulator({ log: () => {} });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await standIn?.close();
  await folders.removeAll();
});

test(
  'a run against another target does not compare the first target\u2019s baseline',
  async () => {
    const dir = await folders.make('bmc-cross-target-');
    const same = { lean: false, only: ['envelope' as const], profile: 'safe' as const };
    const first = await runConformance(testRunOptions(dir, same));
    expect(first.results.embedded).toEqual({ dialect: 'spec' });
    const printed: string[] = [];
    const second = await runConformance(testRunOptions(dir, { ...same, target: standIn.url, print: (l) => printed.push(l) }));
    expect(second.results.embedded).toBeUndefined();
    const why = `another target (the embedded spec simulator → ${standIn.url})`;
    expect(printed).toContain(`not compared with the baseline (${join(dir, 'previous', 'results.json')}): ${why}`);
    expect(printed.filter((l) => / -> /.test(l))).toEqual([]);
    expect(await readFile(join(dir, 'summary.md'), 'utf8')).toContain(`Not compared with the run of ${first.results.startedAt}: ${why}.`);
    expect(existsSync(join(dir, 'changes.json'))).toBe(false);
  },
  hangAfter(120_000),
);
