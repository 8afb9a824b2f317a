/**
 * Everything a load run writes is put back: the write mix, the event scenario, a run interrupted
 * half-way, the upload loop's versions. Checked from outside, with a client of the test's own.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { jsonEqual } from '../../client/json.js';
import { runLoad, type LoadPlan } from '../../load/run-load.js';
import { scenarioByName } from '../../load/scenarios.js';
import { prepareWrites } from '../../load/write-mix.js';
import { simulatorTargetProfile, startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { runLoadCommand } from './helpers.js';

const NS = 'mgmt_project';
const PASSWORD = 'load-Secret-7c1e';
const WRITABLE = simulatorTargetProfile(NS).writable;

let sim: RunningSimulator;
let probe: BmcClient;

async function snapshot(): Promise<unknown[]> {
  return Promise.all(WRITABLE.map(async (w) => ((await probe.get(`${w.path}/attr/${w.name}`)).json as { data: unknown }).data));
}

async function softwareVersions(): Promise<string[]> {
  return ((await probe.get(`/xyz/${NS}/software/`)).json as { data: string[] }).data;
}

beforeAll(async () => {
  sim = await startSimulator({ password: PASSWORD });
  probe = new BmcClient({ baseUrl: sim.url, user: 'root', password: PASSWORD, insecure: true });
  await probe.login();
});

afterAll(async () => {
  await probe.close();
  await sim.close();
});

test('write-mix, events and upload leave every attribute and the software list as they found them', async () => {
  const before = await snapshot();
  const versions = await softwareVersions();
  const r = await runLoadCommand({
    target: sim.url,
    insecure: true,
    password: PASSWORD,
    profile: 'destructive',
    writable: WRITABLE,
    scenario: ['write-mix', 'events', 'upload'],
    duration: 1,
    connections: 2,
    subscribers: 4,
  });
  expect(r.exitCode, r.stdout).toBe(0);
  const writes = r.doc.results.find((x) => x.scenario === 'write-mix')!;
  expect(writes.requests).toBeGreaterThan(10);
  expect(writes.failed).toBe(0);
  expect(r.doc.restores.map((x) => `${x.path} ${x.name}`).sort()).toEqual(WRITABLE.map((w) => `${w.path} ${w.name}`).sort());
  expect(r.doc.restores.every((x) => x.restored)).toBe(true);
  const after = await snapshot();
  after.forEach((v, i) => expect(jsonEqual(v, before[i]), `${WRITABLE[i]!.path} ${WRITABLE[i]!.name}`).toBe(true));
  const upload = r.doc.results.find((x) => x.scenario === 'upload')!;
  expect(upload.uploads!.uploaded).toBeGreaterThan(0);
  expect(upload.uploads).toMatchObject({ deleted: upload.uploads!.uploaded, leftOver: [] });
  expect((await softwareVersions()).sort()).toEqual([...versions].sort());
  // Neither the password nor the session cookie reaches the outputs.
  for (const file of ['load.json', 'load.html']) {
    const text = await readFile(join(r.out, file), 'utf8');
    expect(text.includes(PASSWORD), `${file} holds the password`).toBe(false);
    expect(/sid=[0-9a-f]{16}/.test(text), `${file} holds a session cookie`).toBe(false);
  }
});

test('a run interrupted in the middle of the write mix still restores and reads back every value', async () => {
  const before = await snapshot();
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: PASSWORD, insecure: true });
  await client.login();
  const { cycles } = await prepareWrites(client, WRITABLE);
  const ctl = new AbortController();
  const plan: LoadPlan = {
    client,
    baseUrl: sim.url,
    insecure: true,
    namespace: NS,
    user: 'root',
    password: PASSWORD,
    profile: 'safe',
    scenarios: [scenarioByName('write-mix')!],
    mix: {},
    cycles,
    plan: { kind: 'open', rate: 200 },
    connections: 2,
    durationS: 30,
    maxRequests: 100_000,
    timeoutMs: 5_000,
    abortErrorRate: 0.1,
    subscribers: 0,
    eventWriteRate: 1,
    eventTimeoutMs: 1_000,
    maxSessions: 1,
    maxSubscribers: 1,
    signal: ctl.signal,
  };
  setTimeout(() => ctl.abort(), 500);
  try {
    const outcome = await runLoad(plan);
    expect(outcome.results[0]!.stoppedBy).toBe('interrupted');
    expect(outcome.results[0]!.requests).toBeGreaterThan(0);
    expect(outcome.restores.length).toBe(WRITABLE.length);
    expect(outcome.restores.every((x) => x.restored)).toBe(true);
  } finally {
    await client.close();
  }
  const after = await snapshot();
  after.forEach((v, i) => expect(jsonEqual(v, before[i])).toBe(true));
});

describe('profiles', () => {
  test('writes need the safe profile and uploads the destructive one', async () => {
    await expect(
      runLoadCommand({
        target: sim.url,
        insecure: true,
        password: PASSWORD,
        profile: 'read-only',
        scenario: ['write-mix'],
        writable: WRITABLE,
      }),
    ).rejects.toThrow(/write-mix needs --profile safe/);
    await expect(runLoadCommand({ target: sim.url, insecure: true, password: PASSWORD, scenario: ['upload'] })).rejects.toThrow(
      /upload needs --profile destructive/,
    );
    await expect(runLoadCommand({ target: sim.url, insecure: true, password: PASSWORD, scenario: ['write-mix'] })).rejects.toThrow(
      /--writable/,
    );
  });
});
