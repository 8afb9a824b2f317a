/**
 * A target that goes away after the login: every check meets a refused connection, an environment
 * problem, which Allure must show as broken (not as a conformance failure).
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { runConformance } from '../../runner/run.js';
import { temporaryFolders } from './fixture.js';
import { testRunOptions } from '../support/run-options.js';
import { hangAfter } from '../support/hang.js';

const folders = temporaryFolders();
// This run is the project's test, not a conformance run a CI job page should show.
beforeAll(() => void vi.stubEnv('GITHUB_STEP_SUMMARY', ''));
afterAll(async () => {
  vi.unstubAllEnvs();
  await folders.removeAll();
});

/** A TCP relay to the simulator that can be cut: from then on connections are refused. */
async function relay(port: number): Promise<{ port: number; cut(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

test(
  'checks that cannot reach the target are broken in Allure, under environment problems',
  async () => {
    const sim = await startSimulator({ password: 'relay-pw-5521' });
    const out = await folders.make('bmc-broken-');
    try {
      const link = await relay(Number(new URL(sim.url).port));
      await runConformance(
        testRunOptions(out, {
          lean: false,
          target: `https://127.0.0.1:${link.port}`,
          password: 'relay-pw-5521',
          only: ['envelope'],
          timeoutMs: 5_000,
          // Gone for good: the run waits a second for it to come back, then gives up.
          rebootWaitMs: 1_000,
          // The run names its target once the login worked: the target goes away right then.
          print: (line) => void (line.startsWith('bmc-conformance run:') && link.cut()),
        }),
      );
      const names = (await readdir(join(out, 'allure-results'))).filter((n) => n.endsWith('-result.json'));
      const results = await Promise.all(
        names.map(async (n) => JSON.parse(await readFile(join(out, 'allure-results', n), 'utf8')) as { name: string; status: string }),
      );
      // The run-wide oracle judges the answers the run received: none came, so it judged nothing.
      const oracle = results.filter((r) => r.name.includes('run-wide'));
      const statuses = results.filter((r) => !oracle.includes(r)).map((r) => r.status);
      expect(statuses.length).toBeGreaterThan(0);
      expect(new Set(statuses)).toEqual(new Set(['broken']));
      expect(new Set(oracle.map((r) => r.status))).toEqual(new Set(['skipped']));
      const categories = JSON.parse(await readFile(join(out, 'allure-results', 'categories.json'), 'utf8')) as Array<{
        name: string;
        matchedStatuses: string[];
      }>;
      expect(categories.filter((c) => c.matchedStatuses.includes('broken')).map((c) => c.name)).toEqual([
        'Environment or harness problems',
      ]);
    } finally {
      await sim.close();
    }
  },
  hangAfter(60_000),
);
