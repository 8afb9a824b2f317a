/** Software versions created by a test (upload, DownloadViaTFTP) and their removal afterwards. */
import { describeResponse, ensure, setDifference } from './assert.js';
import type { CheckContext } from './check.js';
import { children, invalidateTreeCache } from './tree.js';

/** Poll a listing until new children appear or the time is up; returns the new ones. */
export async function waitForNewChildren(t: CheckContext, parent: string, before: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const added = setDifference(await children(t.client, parent), before);
    if (added.length > 0 || Date.now() >= deadline) return added;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** After the test, delete the versions it created (they implement Object.Delete); gone already is fine. */
export function deleteSoftwareVersions(t: CheckContext, paths: string[]): void {
  for (const path of paths) {
    t.cleanup(async () => {
      invalidateTreeCache();
      const res = await t.client.delete(path);
      ensure(res.status === 200 || res.status === 404, `removing ${path} created by the test answered ${describeResponse(res)}`);
    });
  }
}

/** A version string no target has seen: uploads of it register a new version. */
export function freshVersion(tag: string): string {
  return `bmc-conformance-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
