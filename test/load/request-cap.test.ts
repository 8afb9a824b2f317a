/**
 * A window the request cap cut short says so: each engine's stop note names the cap and how much of
 * the announced window it measured, the console marks the row and the header names the flag. Every
 * window here is far longer than its cap takes to reach on 127.0.0.1, so the cap, not the clock,
 * ends each run; nothing asserts how long that took.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { closedLoop } from '../../load/closed-loop.js';
import type { EngineOptions } from '../../load/engine.js';
import { runEventScenario } from '../../load/events.js';
import { openLoop } from '../../load/open-loop.js';
import { fixedSource } from '../../load/request-source.js';
import { sessionHeaders } from '../../load/session-headers.js';
import { prepareWrites, restoreOriginals } from '../../load/write-mix.js';
import { simulatorTargetProfile, startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { runLoadCommand } from './helpers.js';

const NS = 'mgmt_project';
/** The announced window: minutes away from a cap of a few dozen requests. */
const WINDOW_S = 120;
const capNote = (cap: string): RegExp => new RegExp(`^stopped at ${cap} after \\d+\\.\\d s of ${WINDOW_S} s \\(--max-requests\\)$`);

describe('engines', () => {
  let sim: RunningSimulator;
  let client: BmcClient;
  const opts = (over: Partial<EngineOptions>): EngineOptions => ({
    baseUrl: sim.url,
    insecure: true,
    headers: sessionHeaders(client, NS),
    source: fixedSource({ method: 'GET', path: `/xyz/${NS}/inventory/system` }),
    connections: 2,
    durationS: WINDOW_S,
    maxRequests: 40,
    timeoutMs: 10_000,
    abortErrorRate: 0.1,
    ...over,
  });
  beforeAll(async () => {
    sim = await startSimulator();
    client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 10_000 });
    await client.login();
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  test('the closed loop names the cap and the part of the window it measured', async () => {
    const f = await closedLoop(opts({}));
    expect(f.requests).toBeLessThanOrEqual(40);
    expect(f.stoppedBy).toBe('request-cap');
    expect(f.stopNote).toMatch(capNote('the request cap of 40'));
  });

  test('the open loop too', async () => {
    const f = await openLoop(opts({ maxRequests: 12 }), [{ rate: 40, durationS: WINDOW_S }]);
    expect(f.requests).toBe(12);
    expect(f.stoppedBy).toBe('request-cap');
    expect(f.stopNote).toMatch(capNote('the request cap of 12'));
  });

  test("the event scenario's writes too", async () => {
    const { cycles } = await prepareWrites(client, simulatorTargetProfile(NS).writable.slice(0, 1));
    try {
      const r = await runEventScenario({
        client,
        cycles,
        subscribers: 1,
        writeRate: 20,
        durationS: WINDOW_S,
        maxWrites: 5,
        eventTimeoutMs: 2_000,
        abortErrorRate: 0.5,
      });
      expect(r.events.writes).toBe(5);
      expect(r.writes.stoppedBy).toBe('request-cap');
      expect(r.writes.stopNote).toMatch(capNote('the cap of 5 writes'));
    } finally {
      await restoreOriginals(client, cycles);
    }
  });
});

describe('the console', () => {
  test('the header names the flag, the row is marked, the closing line says how much of the window was measured', async () => {
    const r = await runLoadCommand({ scenario: ['get-attr'], duration: WINDOW_S, connections: 1, maxRequests: 30 });
    expect(r.stdout).toContain(`${WINDOW_S} s per scenario, at most 30 requests each (--max-requests)`);
    expect(r.stdout).toMatch(/^ {2}get-attr .*cut short by the request cap \(below\)$/m);
    const closing = r.stdout.split('\n').find((l) => l.startsWith('  get-attr: stopped'));
    expect(closing?.slice('  get-attr: '.length)).toMatch(capNote('the request cap of 30'));
    expect(r.doc.results[0]).toMatchObject({ stoppedBy: 'request-cap', requests: 30 });
  });

  test('a capacity step the cap cut short is named with the step', async () => {
    // 20 requests/s for 120 s would be 2,400 requests: the cap of 25 ends each step.
    const r = await runLoadCommand({
      scenario: ['get-attr'],
      findCapacity: true,
      rate: 20,
      maxRate: 40,
      duration: WINDOW_S,
      maxRequests: 25,
      maxSubscribers: 2,
    });
    const steps = r.doc.results[0]!.capacity!.steps;
    expect(steps.length).toBeGreaterThan(0);
    for (const s of steps) expect(s.cutShort).toMatch(capNote('the request cap of 25'));
    expect(r.stdout).toContain(
      `get-attr: ${steps.length} of ${steps.length} capacity steps cut short by the request cap (--max-requests), from 20 req/s`,
    );
  });
});
