/** A simulator with a logged-in fuzzing environment around it, for the fuzzer's own tests. */
import { BmcClient } from '../../client/http.js';
import { simulatorTargetProfile, startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { buildModel } from '../../suites/fuzz/model.js';
import type { FuzzEnv } from '../../suites/fuzz/properties/common.js';
import { FuzzStats } from '../../suites/fuzz/send.js';
import { enumerate, list } from '../../suites/harness/tree.js';
import { NS, ROOT, WHO } from './fixture.js';

export interface FuzzTarget {
  env: FuzzEnv;
  loginClient: BmcClient;
  url: string;
  close(): Promise<void>;
}

export async function fuzzTarget(options: SimulatorOptions = {}): Promise<FuzzTarget> {
  const sim: RunningSimulator = await startSimulator({ namespace: NS, log: () => {}, ...options });
  const client = new BmcClient({ baseUrl: sim.url, ...WHO, insecure: true, timeoutMs: 5_000 });
  await client.login();
  const sideClient = client.fork({ cookies: client.exportCookies() });
  const loginClient = client.fork();
  const model = buildModel(NS, await list(client, ROOT), await enumerate(client, ROOT));
  const env: FuzzEnv = {
    client,
    sideClient,
    model,
    who: WHO,
    profile: 'destructive',
    writable: simulatorTargetProfile(NS).writable,
    stats: new FuzzStats(),
    knownGood: `${ROOT}/inventory/system`,
    loginFailures: { left: Number.POSITIVE_INFINITY, skipped: 0 },
    acceptedMalformed: [],
  };
  return {
    env,
    loginClient,
    url: sim.url,
    async close() {
      await Promise.all([client, sideClient, loginClient].map((c) => c.close()));
      await sim.close();
    },
  };
}
