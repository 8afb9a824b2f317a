/**
 * `npm run bench`: figures measured in one run on this machine, stated as ratios where a
 * baseline exists (machines are noisy; no figure here is a test assertion).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { generate } from 'selfsigned';
import { BmcClient } from '../client/http.js';
import { closedLoop } from '../load/closed-loop.js';
import { fixedSource } from '../load/request-source.js';
import { startSimulator } from '../simulator/index.js';
import { measureFuzzThroughput } from './fuzz-throughput.js';
import { capacityAnswers, eventDelivery, loadVsWrk } from './load-vs-wrk.js';
import { hardwareRuns } from './hardware-run.js';
import { linearizabilitySpeed } from './linearizability.js';
import { answerOracleCost } from './answer-oracle.js';
import { percentile } from '../client/percentile.js';
import { messageOf } from '../client/errors.js';

const NS = 'mgmt_project';
const CONNECTIONS = 10;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);

async function loggedIn(url: string): Promise<BmcClient> {
  const client = new BmcClient({ baseUrl: url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 120_000 });
  await client.login();
  return client;
}

/** A bare node:https server answering the same-sized fixed JSON body: the ceiling for this machine. */
async function bareServer(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

async function getObjectRatio(): Promise<void> {
  const sim = await startSimulator({ namespace: NS });
  const client = await loggedIn(sim.url);
  const path = `/xyz/${NS}/inventory/system`;
  const sample = await client.get(path);
  const bare = await bareServer(sample.text);
  try {
    const run = (baseUrl: string, headers: Record<string, string>) =>
      closedLoop({
        baseUrl,
        insecure: true,
        headers: () => headers,
        source: fixedSource({ method: 'GET', path }),
        connections: CONNECTIONS,
        durationS: DURATION_S,
        maxRequests: 10_000_000,
        timeoutMs: 30_000,
        abortErrorRate: 1,
      });
    const simFigures = await run(sim.url, { accept: 'application/json', cookie: client.cookieHeader() });
    const bareFigures = await run(bare.url, { accept: 'application/json' });
    console.log(
      `GET object: simulator ${simFigures.requestsPerSecond.toFixed(0)} req/s (p50 ${simFigures.latency.p50} ms, non-2xx ${simFigures.non2xx}), bare node:https ${bareFigures.requestsPerSecond.toFixed(0)} req/s`,
    );
    console.log(
      `GET object ratio simulator/bare: ${(simFigures.requestsPerSecond / bareFigures.requestsPerSecond).toFixed(2)} (target >= 0.6; ${CONNECTIONS} connections, ${DURATION_S} s each)`,
    );
  } finally {
    await client.close();
    await Promise.all([sim.close(), bare.close()]);
  }
}

async function enumerateLatency(): Promise<void> {
  const started = performance.now();
  const sim = await startSimulator({ namespace: NS, objects: 10_000 });
  const startMs = performance.now() - started;
  const client = await loggedIn(sim.url);
  try {
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const res = await client.get(`/xyz/${NS}/enumerate`);
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`enumerate answered ${res.status}`);
      size = res.text.length;
    }
    times.sort((a, b) => a - b);
    console.log(
      `enumerate /xyz/${NS} with --objects 10000: median ${percentile(times, 50).toFixed(1)} ms, p90 ${percentile(times, 90).toFixed(1)} ms over 15 requests (${(size / 1e6).toFixed(1)} MB body; simulator start ${startMs.toFixed(0)} ms)`,
    );
  } finally {
    await client.close();
    await sim.close();
  }
}

async function fuzzThroughput(): Promise<void> {
  const sim = await startSimulator({ namespace: NS });
  try {
    const r = await measureFuzzThroughput(sim.url, { namespace: NS });
    console.log(
      `fuzzing: ${r.requests} generated requests in ${r.seconds.toFixed(2)} s = ${r.perSecond.toFixed(0)} requests/s (target >= 1000)`,
    );
    for (const f of r.failures) console.log(`  fuzzing found on the clean simulator: ${f}`);
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(`bmc-conformance bench on ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  // First, while this process is fresh: the in-process simulators below leave a large heap behind
  // whose garbage collection would slow the load runner, not wrk.
  await loadVsWrk(CONNECTIONS, DURATION_S);
  await getObjectRatio();
  await enumerateLatency();
  await eventDelivery(50, DURATION_S);
  await capacityAnswers(2);
  await fuzzThroughput();
  await answerOracleCost();
  await linearizabilitySpeed();
  await hardwareRuns();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(messageOf(err));
    process.exit(1);
  },
);
