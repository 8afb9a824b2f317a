/**
 * A fleet as a lab runs it: six simulators (two of the spec, two per field dialect, some with a
 * fault) and an unreachable seventh, run as two shards into two folders and merged. The merged
 * matrix must be what six single runs give; the unreachable target is reported and stops nothing;
 * no password from the environment lands in any file. Lean runs (two areas) keep it cheap.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packageRoot } from '../../client/package-root.js';
import type { Results } from '../../client/results.js';
import type { FleetMatrix, FleetTarget } from '../../report/fleet/matrix.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { pooled } from '../../client/pooled.js';
import { cli, type Ran } from '../support/cli.js';
import { hangAfter } from '../support/hang.js';

/** The same lean configuration for the single runs and the fleet, so the comparison is fair. */
const LEAN = ['--only', 'envelope,listings', '--seed', '20261123'];

interface Machine {
  name: string;
  sim: SimulatorOptions;
  profile: string;
  platform?: string;
}

const MACHINES: Machine[] = [
  { name: 'spec-clean', sim: {}, profile: 'profiles/simulator.json' },
  { name: 'spec-status-ok', sim: { faults: ['status-ok-on-error'] }, profile: 'profiles/simulator.json' },
  {
    name: 'phosphor-shipped',
    // No time per request (the field server's pace, one at a time): the fleet's runs would wait on it, not judge it.
    sim: { dialect: 'phosphor-rest', namespace: 'openbmc_project', requestMs: 0 },
    profile: 'profiles/phosphor-rest-server.json',
  },
  {
    name: 'phosphor-relative',
    sim: { dialect: 'phosphor-rest', namespace: 'openbmc_project', faults: ['listing-relative-paths'], requestMs: 0 },
    profile: 'profiles/phosphor-rest-server.json',
  },
  { name: 'bmcweb-shipped', sim: { dialect: 'bmcweb', namespace: 'openbmc_project' }, profile: 'profiles/bmcweb.json' },
  // No expectations for its deviations: they FAIL, as on a platform nobody profiled yet.
  { name: 'bmcweb-unprofiled', sim: { dialect: 'bmcweb' }, profile: 'profiles/simulator.json', platform: 'bmcweb' },
];
const UNREACHABLE = 'gone-7';

let root: string;
let sims: RunningSimulator[] = [];
const passwords = MACHINES.map((_, i) => `fleet-Secret-${i}-${randomBytes(6).toString('hex')}`);
const env = Object.fromEntries(passwords.map((p, i) => [`FLEET_PW_${i}`, p]));
let singles: Array<{ ran: Ran; results: Results }>;
let shards: Ran[];
let merged: Ran;
let fleet: FleetMatrix;
let shardFleets: FleetMatrix[];

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;
const byName = (m: FleetMatrix, name: string): FleetTarget => m.targets.find((t) => t.name === name)!;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'bmc-fleet-'));
  sims = await Promise.all(MACHINES.map((m, i) => startSimulator({ log: () => {}, password: passwords[i], ...m.sim })));
  const targets = [
    ...MACHINES.map((m, i) => ({
      name: m.name,
      url: sims[i]!.url,
      passwordEnv: `FLEET_PW_${i}`,
      targetProfile: join(packageRoot(), m.profile),
      insecure: true,
      ...(m.platform && { platform: m.platform }),
    })),
    {
      name: UNREACHABLE,
      url: 'https://127.0.0.1:1',
      passwordEnv: 'FLEET_PW_0',
      targetProfile: join(packageRoot(), 'profiles/simulator.json'),
      insecure: true,
    },
  ];
  // Written in an order of its own: the shards must not depend on it.
  await writeFile(join(root, 'lab.json'), JSON.stringify({ targets: [...targets].reverse() }, null, 2));
  const single = (m: Machine, i: number): Promise<Ran> =>
    cli(
      [
        'run',
        '--target',
        sims[i]!.url,
        '--insecure',
        '--target-profile',
        join(packageRoot(), m.profile),
        '--out',
        join(root, 'single', m.name),
        ...LEAN,
      ],
      { BMC_PASSWORD: passwords[i] },
    );
  const shard = (i: number): Promise<Ran> =>
    cli(
      [
        'run',
        '--targets',
        join(root, 'lab.json'),
        '--shard',
        `${i}/2`,
        '--fleet-concurrency',
        '2',
        '--out',
        join(root, `shard-${i}`),
        ...LEAN,
      ],
      env,
    );
  // Never two runs against one simulator at once: a write of one (EP-7 writes and restores) would
  // show in the other's reads and trace. The shards hold different targets, so they go side by side.
  const singleRuns = await pooled(
    MACHINES.map((m, i) => [m, i] as const),
    3,
    ([m, i]) => single(m, i),
  );
  const shardRuns = await Promise.all([shard(1), shard(2)]);
  singles = await Promise.all(
    singleRuns.map(async (ran, i) => ({ ran, results: await readJson<Results>(join(root, 'single', MACHINES[i]!.name, 'results.json')) })),
  );
  shards = shardRuns;
  shardFleets = await Promise.all([1, 2].map((i) => readJson<FleetMatrix>(join(root, `shard-${i}`, 'fleet.json'))));
  merged = await cli(['report', '--merge', join(root, 'shard-1'), join(root, 'shard-2'), '--out', join(root, 'merged')]);
  fleet = await readJson<FleetMatrix>(join(root, 'merged', 'fleet.json'));
}, hangAfter(150_000));

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await rm(root, { recursive: true, force: true });
});

describe('a fleet of six simulators and an unreachable seventh, in two shards', () => {
  test('the single runs give FAILs on the faulty and unprofiled targets (the comparison means something)', () => {
    const fails = Object.fromEntries(
      singles.map((s, i) => [MACHINES[i]!.name, s.results.requirements.filter((r) => r.verdict === 'FAIL').map((r) => r.id)]),
    );
    expect(fails['spec-clean']).toEqual([]);
    expect(fails['spec-status-ok']).toContain('ENV-3');
    expect(fails['phosphor-relative']).toContain('EP-5');
    expect(fails['bmcweb-unprofiled']).toEqual(expect.arrayContaining(['RULE-1']));
    expect(singles[4]!.results.requirements.find((r) => r.id === 'RULE-1')?.verdict).toBe('XFAIL');
  });

  test('the merged matrix equals the verdicts of the six single runs, with their exit codes', () => {
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    for (const [i, m] of MACHINES.entries()) {
      const t = byName(fleet, m.name);
      const want = Object.fromEntries(singles[i]!.results.requirements.map((r) => [r.id, r.verdict]));
      expect(t.verdicts, m.name).toEqual(want);
      expect(t.summary, m.name).toEqual(singles[i]!.results.summary);
      expect(t.exitCode, m.name).toBe(singles[i]!.ran.code);
      expect(t.status).toBe(singles[i]!.ran.code === 0 ? 'passed' : 'failed');
    }
    expect(fleet.targets.map((t) => t.name)).toEqual([...MACHINES.map((m) => m.name), UNREACHABLE].sort());
    expect(fleet.shards).toEqual([
      { index: 1, count: 2 },
      { index: 2, count: 2 },
    ]);
  });

  test('the shards split the list: disjoint, together the whole of it', () => {
    const names = shardFleets.map((f) => f.targets.map((t) => t.name));
    expect(names[0]!.filter((n) => names[1]!.includes(n))).toEqual([]);
    expect([...names[0]!, ...names[1]!].sort()).toEqual(fleet.targets.map((t) => t.name));
    expect(Math.abs(names[0]!.length - names[1]!.length)).toBeLessThanOrEqual(1);
  });

  test('the unreachable target: exit 2 for it, "unreachable: <sentence>" in the summaries and fleet.json, while the other six completed', async () => {
    const gone = byName(fleet, UNREACHABLE);
    expect(gone).toMatchObject({ status: 'unreachable', exitCode: 2 });
    expect(gone.message).toMatch(/^Cannot reach https:\/\/127\.0\.0\.1:1: .*\.$/);
    expect(gone.verdicts).toBeUndefined();
    expect(fleet.targets.filter((t) => t.verdicts !== undefined)).toHaveLength(6);
    const withGone = shardFleets.findIndex((f) => f.targets.some((t) => t.name === UNREACHABLE));
    const ran = shards[withGone]!;
    expect(ran.code, ran.stdout + ran.stderr).toBe(2);
    expect(ran.stdout).toMatch(new RegExp(`\\] ${UNREACHABLE}  unreachable: Cannot reach .*  exit 2`));
    expect(await readFile(join(root, 'merged', 'summary.md'), 'utf8')).toContain(`| unreachable: ${gone.message} |`);
    expect(await readFile(join(root, 'merged', 'summary.html'), 'utf8')).toContain(
      `<span class="badge s-unreachable">unreachable</span> ${gone.message}`,
    );
  });

  test('each shard prints a line per target as it ends and a final table; exits as its worst target', () => {
    for (const [i, ran] of shards.entries()) {
      const mine = shardFleets[i]!.targets;
      for (const t of mine)
        expect(ran.stdout).toMatch(new RegExp(`^\\[\\d/${mine.length}\\] ${t.name}  .*  \\d+\\.\\d s  (exit \\d|no exit code)$`, 'm'));
      expect(ran.stdout).toMatch(/^\| target +\| platform +\| result +\| PASS .*\| exit \|$/m);
      const want = mine.some((t) => t.exitCode === 2) ? 2 : mine.some((t) => t.exitCode === 1) ? 1 : 0;
      expect(ran.code).toBe(want);
    }
  });

  test('counts per requirement across the fleet, by platform', async () => {
    const md = await readFile(join(root, 'merged', 'summary.md'), 'utf8');
    expect(md).toContain('**RULE-1**');
    expect(md).toMatch(
      /RULE-1\*\* .*: fails on 1 of 6 machines, of platform bmcweb; expected to fail \(XFAIL\) on 3: phosphor-rest-server 2, bmcweb 1/,
    );
    expect(md).toMatch(/ENV-3\*\* .*: fails on 1 of 6 machines, of platform bmc-conformance simulator/);
  });

  test('junit.xml has one suite per target; the unreachable one errors', async () => {
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      await readFile(join(root, 'merged', 'junit.xml'), 'utf8'),
    );
    const suites = xml.testsuites.testsuite as Array<{ name: string; failures: string; errors: string; testcase: unknown }>;
    expect(suites.map((s) => s.name)).toEqual(fleet.targets.map((t) => t.name));
    const gone = suites.find((s) => s.name === UNREACHABLE)!;
    expect(gone.errors).toBe('1');
    for (const [i, m] of MACHINES.entries())
      expect(Number(suites.find((s) => s.name === m.name)!.failures)).toBe(singles[i]!.results.summary.FAIL);
  });

  test('report --merge --previous: newly failing and newly passing per target and requirement; a regression exits 1', async () => {
    const prev = structuredClone(fleet);
    byName(prev, 'spec-status-ok').verdicts!['ENV-3'] = 'PASS';
    byName(prev, 'spec-clean').verdicts!['ENV-1'] = 'FAIL';
    prev.targets = prev.targets.filter((t) => t.name !== 'bmcweb-shipped');
    await mkdir(join(root, 'previous'));
    await writeFile(join(root, 'previous', 'fleet.json'), JSON.stringify(prev));
    const r = await cli([
      'report',
      '--merge',
      join(root, 'shard-2'),
      join(root, 'shard-1'),
      '--out',
      join(root, 'merged-2'),
      '--previous',
      join(root, 'previous'),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const again = await readJson<FleetMatrix>(join(root, 'merged-2', 'fleet.json'));
    expect(again.changes!.changes).toEqual([
      { target: 'spec-clean', id: 'ENV-1', from: 'FAIL', to: 'PASS', kind: 'fix' },
      { target: 'spec-status-ok', id: 'ENV-3', from: 'PASS', to: 'FAIL', kind: 'regression' },
    ]);
    expect(again.changes!.added).toEqual(['bmcweb-shipped']);
    const md = await readFile(join(root, 'merged-2', 'summary.md'), 'utf8');
    expect(md).toContain('- **Newly failing**: spec-status-ok ENV-3 (PASS → FAIL)');
    expect(md).toContain('- **Newly passing**: spec-clean ENV-1 (FAIL → PASS)');
    expect(r.stdout).toContain('spec-status-ok ENV-3 PASS -> FAIL  (newly failing)');
  });

  test('no password from the environment appears in any file of the fleet folders or in what the fleet printed', async () => {
    const files: string[] = [];
    for (const dir of ['shard-1', 'shard-2', 'merged']) {
      for (const f of await readdir(join(root, dir), { recursive: true, withFileTypes: true }))
        if (f.isFile()) files.push(join(f.parentPath, f.name));
    }
    expect(files.filter((f) => f.endsWith('run.log')).length).toBe(7);
    expect(files.length).toBeGreaterThan(40);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      for (const p of passwords) expect(text.includes(p), `${f} holds a password`).toBe(false);
    }
    for (const ran of [...shards, merged]) for (const p of passwords) expect(ran.stdout + ran.stderr).not.toContain(p);
  });
});
