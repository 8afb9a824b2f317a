/**
 * vitest global setup: one temporary root for the whole test run, removed when it ends, whatever
 * way each worker process ends. Helpers shared by several files make their directories under it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function setup(): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), 'bmc-tests-'));
  process.env.BMC_TEST_TMP = root;
  return async () => {
    await rm(root, { recursive: true, force: true });
  };
}
