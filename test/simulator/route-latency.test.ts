/** Slow routes (`--route-latency ROUTE=MS`): each route's requests pay their delay (a read's refusals excepted), and no other's do. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { latencyRouteOf, parseRouteLatency, routeDelayMs } from '../../simulator/route-latency.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { call, login, ROOT } from './helpers.js';

describe('the flag', () => {
  test('ROUTE=MS for each route; other shapes, routes and values are refused with what it takes', () => {
    expect(parseRouteLatency('enumerate=3000')).toEqual({ route: 'enumerate', ms: 3000 });
    expect(parseRouteLatency('subscribe=0')).toEqual({ route: 'subscribe', ms: 0 });
    expect(parseRouteLatency('enumerate')).toMatch(/expected ROUTE=MS/);
    expect(parseRouteLatency('patch=10')).toMatch(/unknown route patch/);
    expect(parseRouteLatency('list=600001')).toMatch(/at most 600000/);
    expect(parseRouteLatency('list=-1')).toMatch(/expected ROUTE=MS/);
  });

  test('a request is slowed by its route alone: PUTs of an attribute and of an object are put, both uploads upload', () => {
    const latency = { enumerate: 3000, put: 50, upload: 70, subscribe: 90 };
    expect(routeDelayMs(latency, 'GET', `${ROOT}/enumerate`)).toBe(3000);
    expect(routeDelayMs(latency, 'GET', `${ROOT}/list`)).toBe(0);
    expect(routeDelayMs(latency, 'PUT', `${ROOT}/time/owner/attr/TimeOwner`)).toBe(50);
    expect(routeDelayMs(latency, 'PUT', `${ROOT}/time/owner`)).toBe(50);
    expect(routeDelayMs(latency, 'PUT', '/upload/image/x.tar')).toBe(70);
    expect(routeDelayMs(latency, 'GET', '/subscribe', true)).toBe(90);
    expect(routeDelayMs(undefined, 'GET', `${ROOT}/enumerate`)).toBe(0);
    expect(latencyRouteOf('OPTIONS', `${ROOT}/enumerate`)).toBeUndefined();
  });
});

describe('a simulator with a slow enumerate', () => {
  const DELAY_MS = 1500;
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ routeLatencyMs: { enumerate: DELAY_MS } });
  });
  afterAll(() => sim.close());

  test('an enumerate answers no sooner than its delay, as it would unslowed; a list sent beside it is answered first', async () => {
    const cookie = await login(sim.url);
    const started = performance.now();
    const order: string[] = [];
    const enumerate = call(sim.url, 'GET', `${ROOT}/enumerate`, { cookie }).then((r) => (order.push('enumerate'), r));
    const list = call(sim.url, 'GET', `${ROOT}/list`, { cookie }).then((r) => (order.push('list'), r));
    const [e, l] = await Promise.all([enumerate, list]);
    // A lower bound only: a busy machine makes it later, never sooner.
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(e.status).toBe(200);
    expect(Object.keys(e.body.data).length).toBeGreaterThan(10);
    expect(l.status).toBe(200);
    expect(order).toEqual(['list', 'enumerate']);
  });

  test('a refused enumerate (no session, no such path) is not slowed: sent after a served one, it is answered first', async () => {
    const cookie = await login(sim.url);
    const order: string[] = [];
    const served = call(sim.url, 'GET', `${ROOT}/enumerate`, { cookie }).then((r) => (order.push('served'), r));
    const anonymous = call(sim.url, 'GET', `${ROOT}/enumerate`).then((r) => (order.push('anonymous'), r));
    const missing = call(sim.url, 'GET', `${ROOT}/bmc_conformance_missing/enumerate`, { cookie }).then((r) => (order.push('missing'), r));
    const [s, a, m] = await Promise.all([served, anonymous, missing]);
    expect([s.status, a.status, m.status]).toEqual([200, 401, 404]);
    expect(order.at(-1)).toBe('served');
  });
});
