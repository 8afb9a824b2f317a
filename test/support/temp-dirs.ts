/** Temporary directories of one test file, removed when the file's tests end: a test run leaves nothing in the machine's tmp. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Call at a file's top level; the function it returns makes a fresh directory named PREFIX…. */
export function tempDirs(prefix: string): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/**
 * For helpers shared by several files (a file-level hook would belong to whichever file loaded the
 * helper first): a fresh directory under the test run's root, which the global setup removes at the
 * run's end (test/support/global-tmp.ts).
 */
export async function runTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(process.env.BMC_TEST_TMP ?? tmpdir(), prefix));
}
