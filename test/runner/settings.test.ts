import { describe, expect, it } from 'vitest';
import { DEFAULTS, firstNamed, layered, resolveNamespace, resolveSettings, targetKind } from '../../runner/settings.js';
import { buildConfig, type RunOptions } from '../../runner/run.js';
import { loadSettings, type LoadOptions } from '../../runner/load-run.js';
import type { EmbeddedTarget } from '../../runner/embedded.js';
import type { TargetProfile } from '../../runner/target-profile.js';

const profile = (over: Partial<TargetProfile> = {}): TargetProfile => ({
  file: 'p.json',
  writable: [],
  deletable: [],
  timeouts: {},
  eventLatency: {},
  expected: {},
  ...over,
});

const runOptions = (over: Partial<RunOptions> = {}): RunOptions => ({
  user: 'root',
  password: 'pw',
  namespace: 'ns',
  insecure: false,
  out: 'out',
  allowFactoryReset: false,
  writable: [],
  faults: [],
  ...over,
});

const loadOptions = (over: Partial<LoadOptions> = {}): LoadOptions => ({
  user: 'root',
  password: 'pw',
  namespace: 'ns',
  insecure: false,
  findCapacity: false,
  abortErrorRate: 5,
  tolerance: 10,
  writable: [],
  fault: [],
  out: 'out',
  ...over,
});

const embedded = (over: Partial<EmbeddedTarget> = {}): EmbeddedTarget => ({
  url: 'https://127.0.0.1:1',
  user: 'root',
  password: 'pw',
  namespace: 'ns',
  writable: [{ path: '/xyz/ns/own', name: 'A' }],
  eventLatencyMs: 0,
  typicalRequestMs: 0,
  tftp: { server: '127.0.0.1:69', file: 'image.tar' },
  stop: async () => {},
  ...over,
});

describe('the kind of target', () => {
  it('is the spec simulator, a field dialect or a URL', () => {
    expect(targetKind(true)).toBe('simulator');
    expect(targetKind(true, 'spec')).toBe('simulator');
    expect(targetKind(true, 'bmcweb')).toBe('dialect');
    expect(targetKind(false)).toBe('url');
  });

  it('gives each kind its defaults', () => {
    const sim = resolveSettings({ kind: 'simulator' });
    expect(sim).toMatchObject({ profile: 'destructive', insecure: true, allowFactoryReset: true, timeoutMs: 15_000 });
    expect(sim).toMatchObject({ eventTimeoutMs: 3_000, quietWindowMs: 200, eventWrites: 10, fuzzRuns: 150, rebootWaitMs: 30_000 });
    expect(sim.statefulTimeMs).toBeUndefined();

    const dialect = resolveSettings({ kind: 'dialect' });
    expect(dialect).toMatchObject({ profile: 'destructive', insecure: true, timeoutMs: 45_000, fuzzRuns: 100, statefulTimeMs: 10_000 });
    expect(dialect).toMatchObject({ eventTimeoutMs: 3_000, quietWindowMs: 200, eventWrites: 10, rebootWaitMs: 30_000 });

    const url = resolveSettings({ kind: 'url' });
    expect(url).toMatchObject({ profile: 'safe', insecure: false, allowFactoryReset: false, timeoutMs: 120_000 });
    expect(url).toMatchObject({ eventTimeoutMs: 10_000, quietWindowMs: 6_000, eventWrites: 4, fuzzRuns: 100, rebootWaitMs: 300_000 });
    expect(url.statefulTimeMs).toBe(10_000);
  });

  it('paces a polling dialect by its latency, with the margin the shipped profiles give', () => {
    const s = resolveSettings({ kind: 'dialect', embedded: { eventLatencyMs: 2_000 } });
    expect(s.eventLatency).toEqual({ expectedMs: 2_000, maxMs: 5_000 });
    expect(s.eventTimeoutMs).toBe(7_500);
    expect(s.quietWindowMs).toBe(5_000);
  });
});

describe('precedence: flags > target profile > defaults', () => {
  const p = profile({ timeouts: { requestMs: 60_000, eventMs: 6_000 }, eventWrites: 2, rps: 5, concurrency: 3 });

  it('takes the default where neither a flag nor the profile says', () => {
    expect(resolveSettings({ kind: 'url', profile: profile() }).timeoutMs).toBe(120_000);
  });

  it('takes the profile over the default', () => {
    const s = resolveSettings({ kind: 'url', profile: p });
    expect(s).toMatchObject({ timeoutMs: 60_000, eventTimeoutMs: 6_000, eventWrites: 2, maxRequestsPerSecond: 5, concurrency: 3 });
  });

  it('takes a flag over the profile', () => {
    const s = resolveSettings({ kind: 'url', profile: p, flags: { timeoutMs: 1_000, eventWrites: 7, maxRequestsPerSecond: 9 } });
    expect(s).toMatchObject({ timeoutMs: 1_000, eventTimeoutMs: 6_000, eventWrites: 7, maxRequestsPerSecond: 9 });
  });

  it('reads a switch left off as no flag given', () => {
    expect(resolveSettings({ kind: 'simulator', flags: { insecure: false, allowFactoryReset: false } })).toMatchObject({
      insecure: true,
      allowFactoryReset: true,
    });
    expect(resolveSettings({ kind: 'url', flags: { insecure: true } }).insecure).toBe(true);
  });

  it('puts the waits the profile latency implies between the profile timeouts and the defaults', () => {
    const latency = profile({ eventLatency: { maxMs: 4_000 } });
    expect(resolveSettings({ kind: 'url', profile: latency })).toMatchObject({ eventTimeoutMs: 6_000, quietWindowMs: 4_000 });
    const both = profile({ eventLatency: { maxMs: 4_000 }, timeouts: { eventMs: 9_000 } });
    expect(resolveSettings({ kind: 'url', profile: both }).eventTimeoutMs).toBe(9_000);
    // A load times deliveries against the plain timeouts.
    expect(resolveSettings({ kind: 'url', profile: latency, waitsFollowLatency: false }).eventTimeoutMs).toBe(10_000);
  });

  it('layers any settings object by the same rule', () => {
    expect(
      layered(
        [
          { a: undefined, b: 2 },
          { a: 1, b: 3 },
        ],
        { a: 0, b: 0, c: 9 },
      ),
    ).toEqual({ a: 1, b: 2, c: 9 });
  });

  it('resolves the namespace by the same rule', () => {
    const named = profile({ namespace: 'openbmc_project' });
    expect(resolveNamespace({ value: 'mgmt_project', given: false }, named)).toBe('openbmc_project');
    expect(resolveNamespace({ value: 'mine', given: true }, named)).toBe('mine');
    expect(resolveNamespace({ value: 'mgmt_project', given: false }, profile())).toBe('mgmt_project');
  });

  it('takes the first list that names a writable attribute', () => {
    const a = [{ path: '/a', name: 'A' }];
    const b = [{ path: '/b', name: 'B' }];
    expect(firstNamed([], a, b)).toEqual(a);
    expect(firstNamed([], [])).toEqual([]);
  });
});

describe('run and load resolve their shared settings alike', () => {
  const shared = ['profile', 'insecure', 'timeoutMs', 'eventTimeoutMs'] as const;
  const cases: Array<{ name: string; run: Partial<RunOptions>; load: Partial<LoadOptions>; p?: TargetProfile }> = [
    { name: 'a URL, no flags', run: { target: 'https://bmc' }, load: { target: 'https://bmc' } },
    {
      name: 'a URL with a profile',
      run: { target: 'https://bmc' },
      load: { target: 'https://bmc' },
      p: profile({ timeouts: { requestMs: 60_000, eventMs: 6_000 } }),
    },
    {
      name: 'a URL with flags over a profile',
      run: { target: 'https://bmc', timeoutMs: 5_000, eventTimeoutMs: 700, profile: 'read-only', insecure: true },
      load: { target: 'https://bmc', timeout: 5_000, eventTimeout: 700, profile: 'read-only', insecure: true },
      p: profile({ timeouts: { requestMs: 60_000, eventMs: 6_000 } }),
    },
    { name: 'the embedded simulator', run: {}, load: {} },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = buildConfig(runOptions({ ...c.run, targetProfile: c.p }), c.run.target ? undefined : embedded());
      const load = loadSettings(loadOptions({ ...c.load, targetProfile: c.p }));
      for (const key of shared) expect(load[key], key).toEqual(run[key]);
    });
  }

  it('caps load connections by the concurrency the run takes as its pool size', () => {
    const p = profile({ concurrency: 3 });
    expect(buildConfig(runOptions({ target: 'https://bmc', targetProfile: p }), undefined).connections).toBe(3);
    expect(loadSettings(loadOptions({ target: 'https://bmc', targetProfile: p })).maxConnections).toBe(3);
    expect(loadSettings(loadOptions({ target: 'https://bmc', targetProfile: p, maxConnections: 8 })).maxConnections).toBe(8);
  });

  it('keeps the kind defaults of the shared settings in one table', () => {
    expect(loadSettings(loadOptions({ target: 'https://bmc' })).timeoutMs).toBe(DEFAULTS.url.timeoutMs);
    expect(loadSettings(loadOptions()).eventTimeoutMs).toBe(DEFAULTS.simulator.eventTimeoutMs);
  });
});

describe("run's configuration", () => {
  it('adds the writables named by flags, expectations and profile; else the simulator its own', () => {
    const flag = { path: '/f', name: 'F' };
    const fromProfile = { path: '/p', name: 'P' };
    const cfg = buildConfig(runOptions({ writable: [flag], targetProfile: profile({ writable: [fromProfile] }) }), embedded());
    expect(cfg.writable).toEqual([flag, fromProfile]);
    expect(buildConfig(runOptions(), embedded()).writable).toEqual(embedded().writable);
  });

  it("takes a TFTP source from the flag, the profile, then the simulator's own", () => {
    const own = embedded();
    const p = profile({ tftp: { server: 'p', file: 'p.tar' } });
    expect(buildConfig(runOptions(), own).tftp).toEqual(own.tftp);
    expect(buildConfig(runOptions({ targetProfile: p }), own).tftp).toEqual(p.tftp);
    expect(buildConfig(runOptions({ targetProfile: p, tftp: { server: 'f', file: 'f.tar' } }), own).tftp).toEqual({
      server: 'f',
      file: 'f.tar',
    });
  });
});
