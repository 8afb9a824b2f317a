/**
 * Self-discipline while the target misbehaves (resets, latency): the run keeps to --rps, holds no
 * more sessions than its own and one test's own, closes every session it opened; a client never
 * opens more connections than it is configured with.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { EventSubscriber } from '../../client/subscriber.js';
import { runConformance } from '../../runner/run.js';
import { loadTargetProfile } from '../../runner/target-profile.js';
import { packageRoot } from '../../client/package-root.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { startChaosProxy, type ChaosProxy, type Fault } from '../chaos/proxy.js';
import { temporaryFolders } from '../report/fixture.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const RPS = 15;
const CONCURRENCY = 2;
const folders = temporaryFolders();
let sim: RunningSimulator;
let proxy: ChaosProxy;
let armed = false;
let seen = 0;

/**
 * Every 9th request is reset, every 5th waits 100 ms. Logins and logouts are left alone: a logout
 * the network loses is made up for at the end of the run (see the chaos table), and here the
 * sessions the run holds at once are counted.
 */
function misbehave(req: { path: string }): Fault | undefined {
  if (!armed || /^\/log(in|out)$/.test(req.path)) return undefined;
  seen++;
  return seen % 9 === 0 ? { kind: 'reset' } : seen % 5 === 0 ? { kind: 'latency', ms: 100 } : undefined;
}

beforeAll(async () => {
  vi.stubEnv('GITHUB_STEP_SUMMARY', '');
  sim = await startSimulator();
  proxy = await startChaosProxy({ upstream: sim.port, fault: misbehave });
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await proxy.close();
  await sim.close();
  await folders.removeAll();
});

test(
  `a client never holds more than its ${CONCURRENCY} connections, however many requests wait and however many are reset`,
  async () => {
    // The first test on this proxy: every connection it sees is this client's.
    const client = new BmcClient({
      baseUrl: proxy.url,
      user: 'root',
      password: '0penBmc',
      insecure: true,
      connections: CONCURRENCY,
      timeoutMs: 5_000,
    });
    await client.login();
    armed = true;
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, () => client.get('/xyz/mgmt_project/inventory/system')));
    armed = false;
    await client.logout();
    await client.close();
    expect(outcomes.filter((o) => o.status === 'rejected').length).toBeGreaterThan(0);
    expect(proxy.stats.connections).toBeGreaterThan(CONCURRENCY);
    expect(proxy.stats.peakConnections).toBeLessThanOrEqual(CONCURRENCY);
  },
  hangAfter(60_000),
);

test(
  `a run keeps to --rps ${RPS} and closes every session, while the target resets and stalls`,
  async () => {
    const profile = { ...(await loadTargetProfile(join(packageRoot(), 'profiles', 'simulator.json'))), concurrency: CONCURRENCY, rps: RPS };
    const startedAt = proxy.stats.arrivals.length;
    const outcome = await runConformance(
      testRunOptions(await folders.make('bmc-discipline-'), {
        target: proxy.url,
        targetProfile: profile,
        only: ['auth', 'events', 'errors'],
        fuzzRuns: 10,
        timeoutMs: 5_000,
        print: (line) => void (line.startsWith('bmc-conformance run:') && (armed = true)),
      }),
    );
    armed = false;
    expect(outcome.results.requirements.length).toBeGreaterThan(0);
    const arrivals = proxy.stats.arrivals.slice(startedAt);
    // Requests, WebSocket handshakes included, as the target sees them arrive: on average within the
    // cap; in the busiest second too, but for arrivals the jitter of the network (a new TLS connection
    // after each reset) brought closer together than they were sent.
    expect((arrivals.length - 1) / ((arrivals.at(-1)! - arrivals[0]!) / 1000)).toBeLessThanOrEqual(RPS);
    expect(proxy.busiestSecond(startedAt)).toBeLessThanOrEqual(Math.ceil(RPS * 1.1) + 1);
    // The run's session and, at most, one a test opened of its own; every one logged out.
    expect(proxy.stats.peakSessions).toBeLessThanOrEqual(2);
    expect(proxy.stats.sessionsClosed).toBe(proxy.stats.sessionsOpened);
  },
  hangAfter(120_000),
);

test('WebSocket handshakes keep to the rate cap too', async () => {
  const client = new BmcClient({ baseUrl: proxy.url, user: 'root', password: '0penBmc', insecure: true, maxRequestsPerSecond: 10 });
  await client.login();
  const from = proxy.stats.arrivals.length;
  const started = performance.now();
  const subscribers = await Promise.all(
    Array.from({ length: 5 }, () => EventSubscriber.open(client, { paths: ['/xyz/mgmt_project/inventory/system'] })),
  );
  // The fifth handshake cannot start before four gaps of 100 ms (less a little timer slack). Their
  // arrival at the target is not measured: a TLS handshake each puts jitter on it.
  expect(performance.now() - started).toBeGreaterThanOrEqual(380);
  expect(proxy.stats.arrivals.length - from).toBe(5);
  await Promise.all(subscribers.map((s) => s.close()));
  await client.logout();
  await client.close();
});
