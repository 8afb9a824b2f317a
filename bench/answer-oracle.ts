/**
 * What the run-wide answers oracle costs per answer: real answers of the embedded simulator (every
 * read route, writes, refusals with and without credentials) are recorded once, then judged again
 * and again by the dispatcher, set beside the round trip of the same requests.
 */
import { performance } from 'node:perf_hooks';
import { BmcClient } from '../client/http.js';
import { EvidenceLog, type Exchange } from '../client/evidence.js';
import { startSimulator } from '../simulator/index.js';
import { noteAnswer } from '../suites/harness/answers.js';
import { startNextRun } from '../client/run-scoped.js';
import { percentile } from '../client/percentile.js';

const NS = 'mgmt_project';
const ROOT = `/xyz/${NS}`;
const ROUNDS = 500;

export async function answerOracleCost(): Promise<void> {
  const sim = await startSimulator({ namespace: NS });
  const recorded: Array<[Exchange, unknown]> = [];
  const evidence = new EvidenceLog();
  evidence.onRecord((x, json) => recorded.push([{ ...x }, json]));
  const client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 30_000, evidence });
  try {
    await client.login();
    const system = `${ROOT}/inventory/system`;
    for (let i = 0; i < 20; i++) {
      await client.get(system);
      await client.get(`${system}/attr/Model`);
      await client.get(`${ROOT}/`);
      await client.get(`${ROOT}/time/list`);
      await client.get(`${ROOT}/enumerate`);
      await client.get(`${ROOT}/bmc_conformance_missing`);
      await client.put(`${system}/attr/AssetTag`, `bench-${i}`);
      await client.get(system, { auth: false, relogin: false });
    }
  } finally {
    await client.close();
    await sim.close();
  }
  const trips = recorded.map(([x]) => x.durationMs).sort((a, b) => a - b);
  startNextRun();
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) for (const [x, json] of recorded) noteAnswer(x, json);
  const perAnswerUs = ((performance.now() - started) * 1000) / (ROUNDS * recorded.length);
  startNextRun();
  const medianTripUs = percentile(trips, 50) * 1000;
  console.log(
    `answers oracle: ${perAnswerUs.toFixed(1)} µs per answer (${recorded.length} recorded answers of 8 kinds judged ${ROUNDS} times), ` +
      `${((perAnswerUs / medianTripUs) * 100).toFixed(2)} % of the median round trip to the embedded simulator (${(medianTripUs / 1000).toFixed(2)} ms)`,
  );
}
