/**
 * The load runner against wrk on the same endpoint, connections and duration (target ratio >= 0.8),
 * event delivery with 50 subscribers, and the capacity search on the simulator with and without a
 * latency fault. The target runs in its own process so it does not share the generator's core.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { BmcClient } from '../client/http.js';
import { findCapacity, CAPACITY_DEFAULTS } from '../load/capacity/capacity.js';
import { closedLoop } from '../load/closed-loop.js';
import type { EngineOptions } from '../load/engine.js';
import { runEventScenario } from '../load/events.js';
import { openLoop } from '../load/open-loop.js';
import { fixedSource } from '../load/request-source.js';
import { sessionHeaders } from '../load/session-headers.js';
import { prepareWrites, restoreOriginals } from '../load/write-mix.js';
import { simulatorTargetProfile } from '../simulator/index.js';
import { spawnSimulator } from './spawned-simulator.js';

const NS = 'mgmt_project';
const PATH = `/xyz/${NS}/inventory/system`;

async function withTarget<T>(faults: string[], fn: (url: string, client: BmcClient) => Promise<T>): Promise<T> {
  const sim = await spawnSimulator(faults);
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 30_000 });
  try {
    await client.login();
    return await fn(sim.url, client);
  } finally {
    await client.close();
    await sim.stop();
  }
}

function engine(url: string, client: BmcClient, over: Partial<EngineOptions>): EngineOptions {
  return {
    baseUrl: url,
    insecure: true,
    headers: sessionHeaders(client, NS),
    source: fixedSource({ method: 'GET', path: PATH }),
    connections: 10,
    durationS: 5,
    maxRequests: 10_000_000,
    timeoutMs: 30_000,
    abortErrorRate: 0.1,
    ...over,
  };
}

/** wrk from Debian, installed when missing and possible (root); undefined when it cannot be had. */
function ensureWrk(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    console.log('wrk is not installed and this is not root: apt-get install -y wrk, then run the bench again');
    return undefined;
  }
  console.log('wrk is not installed: installing the Debian package (apt-get install -y wrk)');
  const r = spawnSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], { stdio: 'ignore' });
  const after = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  if (r.status !== 0 || !after) console.log('wrk could not be installed (apt-get failed): the comparison is skipped');
  return after || undefined;
}

/**
 * Rounds alternate between the two tools after a warm-up of both, and the medians are compared:
 * this machine is shared, and one round of each says more about the neighbours than the tools.
 * The runner is the closed-loop engine of `load` itself (autocannon plus our histograms).
 */
export async function loadVsWrk(connections: number, durationS: number, rounds = 5): Promise<void> {
  const wrk = ensureWrk();
  await withTarget([], async (url, client) => {
    const ours = async (s: number): Promise<number> =>
      (await closedLoop(engine(url, client, { connections, durationS: s }))).requestsPerSecond;
    const theirs = (s: number): number => {
      const out = execFileSync(
        wrk!,
        [
          '-t1',
          `-c${connections}`,
          `-d${s}s`,
          '-H',
          `Cookie: ${client.cookieHeader(PATH)}`,
          '-H',
          'Accept: application/json',
          `${url}${PATH}`,
        ],
        { encoding: 'utf8' },
      );
      if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`wrk got non-2xx answers: ${out}`);
      return Number(/Requests\/sec:\s*([\d.]+)/.exec(out)?.[1]);
    };
    // JIT warm-up of the runner (its first seconds cost half as much again per request) and of the target.
    await ours(3);
    if (!wrk) {
      console.log(
        `load runner, GET object, ${connections} connections, ${durationS} s: ${(await ours(durationS)).toFixed(0)} req/s (no wrk to compare with)`,
      );
      return;
    }
    theirs(2);
    const a: number[] = [];
    const b: number[] = [];
    // Who goes first alternates, so a neighbour's burst does not always land on the same tool.
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        a.push(await ours(durationS));
        b.push(theirs(durationS));
      } else {
        b.push(theirs(durationS));
        a.push(await ours(durationS));
      }
    }
    const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const show = (xs: number[]): string => xs.map((x) => x.toFixed(0)).join(', ');
    console.log(
      `GET object, ${connections} connections, ${durationS} s, ${rounds} alternating rounds (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores): load runner ${show(a)} req/s; wrk (1 thread) ${show(b)} req/s`,
    );
    console.log(
      `load runner / wrk, medians: ${median(a).toFixed(0)} / ${median(b).toFixed(0)} = ${(median(a) / median(b)).toFixed(2)} (target >= 0.8)`,
    );
  });
}

export async function eventDelivery(subscribers: number, durationS: number): Promise<void> {
  await withTarget([], async (_url, client) => {
    const { cycles } = await prepareWrites(client, simulatorTargetProfile(NS).writable);
    try {
      const r = await runEventScenario({
        client,
        cycles,
        subscribers,
        writeRate: 20,
        durationS,
        maxWrites: 10_000,
        eventTimeoutMs: 5_000,
        abortErrorRate: 0.1,
      });
      const e = r.events;
      console.log(
        `event delivery (write sent -> event received), ${subscribers} subscribers, ${e.writes} writes at 20/s: p50 ${e.latency.p50.toFixed(2)} ms, p99 ${e.latency.p99.toFixed(2)} ms, max ${e.latency.max.toFixed(2)} ms; ${e.delivered}/${e.expected} delivered, ${e.lost} lost, ${e.duplicated} duplicated`,
      );
    } finally {
      await restoreOriginals(client, cycles);
    }
  });
}

export async function capacityAnswers(stepS: number): Promise<void> {
  const answers: number[] = [];
  for (const faults of [[], ['slow-serial']]) {
    const found = await withTarget(faults, (url, client) =>
      findCapacity((rate) => openLoop(engine(url, client, { connections: 32, durationS: stepS }), [{ rate, durationS: stepS }]), {
        ...CAPACITY_DEFAULTS,
        startRate: 50,
        maxRate: 20_000,
        p99BoundMs: 250,
      }),
    );
    answers.push(found.sustainableRps);
    const climb = found.steps.map((s) => `${s.rate}${s.sustained ? '' : '✗'}`).join(' ');
    console.log(
      `capacity search, GET object, simulator${faults.length ? ` with --fault ${faults.join(',')}` : ''}: ${found.sustainableRps} requests/s sustained (p99 <= 250 ms, limited by ${found.limitedBy}; steps ${climb})`,
    );
  }
  console.log(`capacity with slow-serial / without: ${(answers[1]! / answers[0]!).toFixed(3)} (the fault must give the lower answer)`);
}
