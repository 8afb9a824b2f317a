/**
 * `replay` repeats a failing test from its evidence: against the same faulty target it reproduces
 * the finding, against a conformant one it says what differs; what it wrote is put back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { parseWritable } from '../../runner/config.js';
import { replay } from '../../runner/replay.js';
import { runConformance } from '../../runner/run.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { testRunOptions } from '../support/run-options.js';

const WRITABLE = ['/xyz/mgmt_project/inventory/system:AssetTag', '/xyz/mgmt_project/control/power_cap:PowerCap'];
let faulty: RunningSimulator;
let clean: RunningSimulator;
let dir: string;
const quiet = { log: () => {} };

async function replayAgainst(sim: RunningSimulator, requirement: string) {
  const lines: string[] = [];
  const outcome = await replay({
    dir,
    requirement,
    target: sim.url,
    user: 'root',
    password: '0penBmc',
    insecure: true,
    timeoutMs: 15_000,
    waitMs: 500,
    print: (line) => lines.push(line),
  });
  return { ...outcome, lines };
}

async function assetTag(sim: RunningSimulator): Promise<unknown> {
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true });
  try {
    return ((await client.get('/xyz/mgmt_project/inventory/system/attr/AssetTag')).json as { data: unknown }).data;
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  // filter-and: paths and interfaces are ANDed, where EV-6 says either admits an event.
  faulty = await startSimulator({ faults: ['filter-and'], ...quiet });
  clean = await startSimulator(quiet);
  dir = await mkdtemp(join(tmpdir(), 'bmc-replay-'));
  const { results } = await runConformance(
    testRunOptions(dir, { target: faulty.url, only: ['events'], writable: WRITABLE.map((w) => parseWritable(w)!), seed: 5 }),
  );
  expect(results.requirements.find((r) => r.id === 'EV-6')?.verdict).toBe('FAIL');
});

afterAll(async () => {
  await Promise.all([faulty?.close(), clean?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('[EV-6] replay of an event finding', () => {
  test('against the same faulty target it reproduces, and puts back what it wrote', async () => {
    const before = await assetTag(faulty);
    const r = await replayAgainst(faulty, 'EV-6');
    expect(r.differences, r.lines.join('\n')).toEqual([]);
    expect(r.reproduced).toBe(true);
    expect(r.lines.some((l) => /subscription \d+ (opened:|sent its) filter/.test(l))).toBe(true);
    expect(await assetTag(faulty)).toEqual(before);
  });

  test('against a conformant target it does not, naming the subscription and the change that differ', async () => {
    const r = await replayAgainst(clean, 'EV-6');
    expect(r.reproduced).toBe(false);
    expect(r.differences.some((d) => /subscription \d+ \(filter .*"interfaces".*\) received the change of /.test(d))).toBe(true);
  });

  test('Ctrl-C stops it: no further step, every value it wrote put back, the outcome says interrupted', async () => {
    const before = await assetTag(faulty);
    const listeners = process.listeners('SIGINT');
    const running = replayAgainst(faulty, 'EV-6');
    // Pressed as a user would: once the replay has changed the attribute.
    for (let i = 0; i < 200 && JSON.stringify(await assetTag(faulty)) === JSON.stringify(before); i++)
      await new Promise((r) => setTimeout(r, 20));
    const added = process.listeners('SIGINT').filter((l) => !listeners.includes(l));
    expect(added).toHaveLength(1);
    added[0]!('SIGINT');
    const r = await running;
    expect(r.interrupted).toBe('SIGINT');
    expect(r.reproduced).toBe(false);
    expect(r.lines).toContain('SIGINT: the replay stops and puts back what it wrote');
    expect(await assetTag(faulty)).toEqual(before);
    expect(process.listeners('SIGINT')).toEqual(listeners);
  });

  test('a requirement without a failing test is a usage error, one sentence', async () => {
    await expect(replayAgainst(faulty, 'EP-1')).rejects.toThrow(
      /^EP-1 has no failing or warning test with evidence in this run; replay takes one that has\.$/,
    );
  });
});
