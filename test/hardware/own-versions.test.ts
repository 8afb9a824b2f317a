/**
 * A run deletes only the versions it uploaded. Against a listing that leaves out its last child, a
 * version hidden before an upload shows up after it as if new; the run must tell its own by the
 * version it carries, and leave the other one alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BmcClient } from '../../client/http.js';
import { buildImage } from '../../client/image.js';
import { runConformance } from '../../runner/run.js';
import { startSimulator, type RunningSimulator } from '../../simulator/index.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const SOFTWARE = '/xyz/mgmt_project/software';
let sim: RunningSimulator;
let client: BmcClient;

beforeAll(async () => {
  sim = await startSimulator({ log: () => {}, faults: ['listing-omits-last'] });
  client = new BmcClient({ baseUrl: sim.url, user: 'root', password: '0penBmc', insecure: true, timeoutMs: 10_000 });
  await client.login();
  // Versions of someone else's beside the simulator's own: with three or more, the listing hides one.
  for (const version of ['lab-image-1', 'lab-image-2']) {
    expect((await client.upload(await buildImage({ version, namespace: 'mgmt_project' }))).status).toBe(200);
  }
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

/** The versions under software/, by the list endpoint (the fault leaves it whole). */
async function versions(): Promise<string[]> {
  const res = await client.get(`${SOFTWARE}/list`);
  expect(res.status).toBe(200);
  return ((res.json as { data: string[] }).data ?? []).filter((p) => p.split('/').length === SOFTWARE.split('/').length + 1).sort();
}

test(
  "uploads beside versions the listing hides: every version there before is there after, and none of the run's is left",
  async () => {
    const before = await versions();
    // Sanity: the listing hides one of them, so an upload can bring the hidden one to light.
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect((await client.get(`${SOFTWARE}/`)).json).toMatchObject({ data: expect.any(Array) });
    expect(((await client.get(`${SOFTWARE}/`)).json as { data: string[] }).data.length).toBe(before.length - 1);
    const out = await mkdtemp(join(tmpdir(), 'bmc-own-versions-'));
    try {
      // Areas that upload a dozen versions between them: one whose ID sorts last hides itself and shows the one before.
      const outcome = await runConformance(
        testRunOptions(out, {
          target: sim.url,
          seed: 20261123,
          profile: 'destructive',
          only: ['upload', 'auth', 'actions', 'events'],
          eventTimeoutMs: 1_500,
          quietWindowMs: 200,
        }),
      );
      expect(outcome.results.requirements.length).toBeGreaterThan(0);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
    expect(await versions()).toEqual(before);
  },
  hangAfter(180_000),
);
