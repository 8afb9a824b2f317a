/**
 * The target restarts for 10 s in the middle of a destructive run of every area (a new simulator
 * comes up behind the proxy: every session is gone). The run waits for it, logs in again and goes
 * on: every area is tested, nothing fails, a test the restart stopped is NOT_TESTED naming the
 * outage, and the downtime is in results.json.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { AREAS, requirement } from '../../catalogue/requirements.js';
import { buildImage } from '../../client/image.js';
import { runConformance } from '../../runner/run.js';
import { loadTargetProfile } from '../../runner/target-profile.js';
import { packageRoot } from '../../client/package-root.js';
import { startSimulator, startTftpServer, type RunningSimulator, type TftpServerHandle } from '../../simulator/index.js';
import { startChaosProxy, type ChaosProxy } from '../chaos/proxy.js';
import { temporaryFolders } from '../report/fixture.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const folders = temporaryFolders();
/** The restart comes with this request of the suites: well into the run, far from its end. */
const RESTART_AT = 150;
const DOWN_SECONDS = 10;

let sim: RunningSimulator;
let tftp: TftpServerHandle;
let tftpDir: string;
let proxy: ChaosProxy;
/** Sees each request; may restart the target. */
let watch: (req: { seq: number; method: string; path: string }) => void = () => undefined;
let restarted: Promise<void> | undefined;
/** The restart in progress, read through a call: the watcher sets it from a callback. */
const restartInProgress = (): Promise<void> | undefined => restarted;

beforeAll(async () => {
  vi.stubEnv('GITHUB_STEP_SUMMARY', '');
  sim = await startSimulator();
  tftpDir = await mkdtemp(join(tmpdir(), 'bmc-restart-tftp-'));
  await writeFile(join(tftpDir, 'image.tar'), await buildImage({ version: `bmc-restart-${process.pid}`, namespace: 'mgmt_project' }));
  tftp = await startTftpServer({ root: tftpDir });
  proxy = await startChaosProxy({
    upstream: sim.port,
    fault: (req) => {
      watch(req);
      return undefined;
    },
  });
});

/** The target goes away for `seconds`, and a new simulator (no session, the initial tree) comes back. */
function restart(seconds: number): void {
  restarted ??= proxy.restart(seconds, async () => {
    await sim.close();
    sim = await startSimulator();
    proxy.upstream = sim.port;
  });
}
afterAll(async () => {
  vi.unstubAllEnvs();
  await proxy.close();
  await sim.close();
  await tftp.close();
  await rm(tftpDir, { recursive: true, force: true });
  await folders.removeAll();
});

test(
  `a restart of ${DOWN_SECONDS} s mid-run: every area tested, the run logs in again, the downtime recorded`,
  async () => {
    const out = await folders.make('bmc-restart-');
    const lines: string[] = [];
    restarted = undefined;
    let armedAt: number | undefined;
    watch = (req) => void (armedAt !== undefined && req.seq - armedAt >= RESTART_AT && restart(DOWN_SECONDS));
    const outcome = await runConformance(
      testRunOptions(out, {
        target: proxy.url,
        profile: 'destructive',
        allowFactoryReset: true,
        fuzzRuns: 20,
        seed: 7,
        targetProfile: await loadTargetProfile(join(packageRoot(), 'profiles', 'simulator.json')),
        tftp: { server: `${tftp.host}:${tftp.port}`, file: 'image.tar' },
        rebootWaitMs: 60_000,
        print: (line) => {
          lines.push(line);
          if (line.startsWith('bmc-conformance run:')) armedAt = proxy.stats.requests;
        },
      }),
    );
    await restartInProgress();
    watch = () => undefined;
    const { results } = outcome;
    expect(restartInProgress(), 'the target restarted during the run').toBeDefined();

    // The downtime: one outage, waited out.
    expect(results.downtime).toHaveLength(1);
    const [outage] = results.downtime!;
    expect(outage).toMatchObject({ back: true });
    expect(outage!.durationMs).toBeGreaterThanOrEqual((DOWN_SECONDS - 1) * 1000);
    expect(outage!.durationMs).toBeLessThan((DOWN_SECONDS + 15) * 1000);
    expect(lines.join('\n')).toMatch(/target unreachable from \d\d:\d\d:\d\d for [\d.]+ s \(.+\); the run waited and went on/);

    // Nothing fails; a test the restart stopped (if it did not take another route) names the outage.
    // Each test once: a test of several requirements is listed under each of them.
    const tests = [...new Map(results.requirements.flatMap((r) => r.tests).map((t) => [t.name, t])).values()];
    // A check that needs a declaration the simulator's profile does not make is NOT_TESTED, restart or not.
    const undeclared = /is a named writable with its members/;
    const notPassing = tests.filter((t) => t.verdict !== 'PASS' && !undeclared.test(t.reason ?? ''));
    expect(
      notPassing.length,
      notPassing
        .slice(0, 5)
        .map((t) => `${t.name}: ${t.verdict} ${t.reason ?? ''}`)
        .join('\n'),
    ).toBeLessThanOrEqual(2);
    for (const t of notPassing) {
      expect(t.verdict, t.name).toBe('NOT_TESTED');
      expect(t.reason, t.name).toMatch(/target unreachable from \d\d:\d\d:\d\d for [\d.]+ s/);
    }
    expect(results.requirements.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN')).toEqual([]);
    // Every area has requirements judged PASS, before and after the restart; fuzzing judges the
    // requirements of other areas, so its own tests are looked for (stateful owns none either).
    for (const area of AREAS.filter((a) => a !== 'fuzz' && a !== 'stateful')) {
      expect(
        results.requirements.some((r) => requirement(r.id).area === area && r.verdict === 'PASS'),
        area,
      ).toBe(true);
    }
    expect(tests.filter((t) => /generated|fuzzed/.test(t.name) && t.verdict === 'PASS').length, 'fuzz').toBeGreaterThan(0);
    expect(outcome.exitCode).toBe(0);

    // A new session after the restart (the old one went with the target), said in results and console; every session closed.
    expect(proxy.stats.sessionsLostInRestart).toBeGreaterThan(0);
    expect(results.sessionsLost?.length ?? 0).toBeGreaterThan(0);
    expect(lines.join('\n')).toMatch(/The target stopped accepting a working session without a logout/);
    expect(proxy.stats.sessionsClosed + proxy.stats.sessionsLostInRestart).toBe(proxy.stats.sessionsOpened);
  },
  hangAfter(120_000),
);

test(
  'a restart with no downtime (socket activation) that drops every session is recorded, not hidden by the new login',
  async () => {
    const out = await folders.make('bmc-restart-at-once-');
    const lines: string[] = [];
    restarted = undefined;
    let armedAt: number | undefined;
    watch = (req) => void (armedAt !== undefined && req.seq - armedAt >= 40 && restart(0));
    const outcome = await runConformance(
      testRunOptions(out, {
        target: proxy.url,
        only: ['objects', 'listings', 'writes'],
        seed: 7,
        targetProfile: await loadTargetProfile(join(packageRoot(), 'profiles', 'simulator.json')),
        print: (line) => {
          lines.push(line);
          if (line.startsWith('bmc-conformance run:')) armedAt = proxy.stats.requests;
        },
      }),
    );
    await restartInProgress();
    watch = () => undefined;
    expect(restartInProgress(), 'the target restarted during the run').toBeDefined();
    const { results } = outcome;
    expect(results.sessionsLost?.length ?? 0, lines.join('\n')).toBeGreaterThan(0);
    expect(results.sessionsLost![0]).toMatchObject({ status: 401 });
    expect(lines.join('\n')).toMatch(
      /The target stopped accepting a working session without a logout (once|\d+ times) \(first at .+: (GET|PUT) \/.+ answered 401\)/,
    );
  },
  hangAfter(120_000),
);

test(
  'a factory reset that reboots the target: the Reset check waits for it and passes, the downtime recorded',
  async () => {
    restarted = undefined;
    // The target answers the Reset, then goes away for 3 s: the next request finds it gone.
    let reset = false;
    watch = (req) => {
      if (reset) restart(3);
      reset ||= req.method === 'POST' && req.path.endsWith('/software/action/Reset');
    };
    const outcome = await runConformance(
      testRunOptions(await folders.make('bmc-reset-'), {
        target: proxy.url,
        profile: 'destructive',
        allowFactoryReset: true,
        only: ['actions'],
        requirements: ['ACT-2'],
        rebootWaitMs: 30_000,
        print: () => undefined,
      }),
    );
    await restartInProgress();
    watch = () => undefined;
    expect(restartInProgress(), 'the target rebooted after the Reset').toBeDefined();
    const act2 = outcome.results.requirements.find((r) => r.id === 'ACT-2');
    expect(act2, JSON.stringify(act2?.tests.map((x) => [x.name, x.verdict, x.reason]))).toMatchObject({ verdict: 'PASS' });
    expect(outcome.results.downtime).toEqual([expect.objectContaining({ back: true })]);
    expect(proxy.stats.sessionsClosed + proxy.stats.sessionsLostInRestart).toBe(proxy.stats.sessionsOpened);
  },
  hangAfter(60_000),
);
