/** Software versions created by a test (upload, DownloadViaTFTP) and their removal afterwards. */
import { buildImage } from '../../client/image.js';
import { isSuccess, type BmcResponse } from '../../client/http.js';
import { describeResponse, descriptionOf, ensure, envelopeOf, setDifference } from './assert.js';
import type { CheckContext } from './check.js';
import { children, invalidateTreeCache } from './tree.js';
import { forgetEachRun } from '../../client/run-scoped.js';
import { isMap } from '../../client/values.js';
import { pollFor } from './poll.js';

/** An upload whose image was looked at: it was taken, or refused for the image, not the credentials. */
export function uploadProcessed(res: BmcResponse): boolean {
  if (res.status >= 200 && res.status < 300) return true;
  const description = descriptionOf(res);
  return res.status === 400 && typeof description === 'string' && /extract|already exists/i.test(description);
}

/** Whether the target processed an upload of the run's session: evidence the upload channel takes a session. */
let ownUploadTaken = false;

/** How long the slowest refusal of a processed upload took to come (a field server polls for 10-15 s). */
let slowestRefusal = 0;

/** When a version a test created was last deleted after it (performance.now()). */
let removedAt: number | undefined;
forgetEachRun(() => {
  ownUploadTaken = false;
  slowestRefusal = 0;
  removedAt = undefined;
});

/**
 * An upload with the run's session (POST, or PUT with `remoteName`). When the target processed
 * it, it is remembered: as proof that the channel takes the session, and how slow a refusal was.
 */
export async function uploadOwn(t: CheckContext, image: Buffer, remoteName?: string): Promise<BmcResponse> {
  const res = await t.client.upload(image, remoteName);
  if (uploadProcessed(res)) {
    ownUploadTaken = true;
    if (res.status >= 400) slowestRefusal = Math.max(slowestRefusal, res.durationMs);
  }
  return res;
}

/** The slowest refusal of an upload of the run's session so far (0 before any). */
export function slowestRefusedUploadMs(): number {
  return slowestRefusal;
}

/** Whether the upload channel already took the run's session in this run. */
export function ownUploadSeen(): boolean {
  return ownUploadTaken;
}

/**
 * The versions under software/ as its children listing and its list of descendants show them
 * together: a version one of the two leaves out is still found, to be judged and deleted (each
 * endpoint's own faults are judged where it is checked, EP-5 and EP-6).
 */
export async function listedVersions(t: CheckContext, parent: string): Promise<string[]> {
  const listed = await children(t.client, parent);
  const res = await t.client.get(`${parent}/list`);
  const data = isSuccess(res) ? envelopeOf(res)?.data : undefined;
  const below = (p: unknown): p is string =>
    typeof p === 'string' && p.startsWith(`${parent}/`) && !p.slice(parent.length + 1).includes('/');
  // What only the list shows counts where it answers: a list that keeps deleted paths would hide
  // a version registered again under the same ID.
  const more = [...new Set(Array.isArray(data) ? data.filter(below) : [])].filter((p) => !listed.includes(p));
  for (const path of more) if (isSuccess(await t.client.get(path))) listed.push(path);
  return listed;
}

/** Poll the versions until new ones appear or the time is up; returns the new ones. */
export async function waitForNewVersions(t: CheckContext, parent: string, before: string[], timeoutMs: number): Promise<string[]> {
  const newVersions = async () => setDifference(await listedVersions(t, parent), before);
  return pollFor(newVersions, (added) => added.length > 0, timeoutMs, 200);
}

/** After the test, delete the versions it created (they implement Object.Delete); gone already is fine. */
export function deleteSoftwareVersions(t: CheckContext, paths: string[]): void {
  for (const path of paths) {
    t.cleanup(async () => {
      invalidateTreeCache();
      // Gone already (the test deleted it): nothing to remove. What a DELETE of a missing path
      // answers differs between servers (404, 405), so it is not asked.
      if ((await t.client.get(path)).status !== 200) return;
      const res = await t.client.delete(path);
      ensure(res.status >= 200 && res.status < 300, `removing ${path} created by the test answered ${describeResponse(res)}`);
      removedAt = performance.now();
    });
  }
}

/** When a version a test created was last deleted after it, if one was: an object that appeared and went. */
export function lastVersionRemoval(): number | undefined {
  return removedAt;
}

/** How every version the run makes begins. */
export const FRESH_PREFIX = 'bmc-conformance-';

/** A version string no target has seen: uploads of it register a new version. */
export function freshVersion(tag: string): string {
  return `${FRESH_PREFIX}${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * How long a version may take to appear after an upload answered: long on hardware (the image
 * manager is polled), an event timeout on the embedded simulator (it registers before answering).
 */
export function uploadWaitMs(t: CheckContext): number {
  return t.cfg.embedded ? t.cfg.eventTimeoutMs : Math.max(t.cfg.eventTimeoutMs, 15_000);
}

/**
 * Uploads an image (a fresh version unless one is given, with its version) and returns the answer
 * with the versions it registered under software/; those are deleted after the test.
 */
export async function uploadAndTrack(
  t: CheckContext,
  opts: { image?: { image: Buffer; version: string }; tag?: string; remoteName?: string } = {},
): Promise<{ res: BmcResponse; added: string[] }> {
  const softwareRoot = `${t.root}/software`;
  const before = await listedVersions(t, softwareRoot);
  const version = opts.image?.version ?? freshVersion(opts.tag ?? 'upload');
  const image = opts.image?.image ?? (await buildImage({ version, namespace: t.ns }));
  invalidateTreeCache();
  const res = await uploadOwn(t, image, opts.remoteName);
  // Any success: a 202 says accepted, and its version is still to appear (a code other than 200 is ERR-4's).
  const appeared = isSuccess(res) ? await waitForNewVersions(t, softwareRoot, before, uploadWaitMs(t)) : [];
  const added = await carrying(t, appeared, version);
  deleteSoftwareVersions(t, added);
  return { res, added };
}

/**
 * Of the versions that appeared after an upload, those that carry its version: a listing that
 * left a child out before the upload shows it now as new, and it is not the run's to judge or delete.
 * Read from the attribute, else from the object: a fault of one of the two reads loses no version.
 */
async function carrying(t: CheckContext, appeared: string[], version: string): Promise<string[]> {
  const shows = (data: unknown) => data === version || (isMap(data) && data.Version === version);
  const own: string[] = [];
  for (const path of appeared) {
    for (const url of [`${path}/attr/Version`, path]) {
      const res = await t.client.get(url);
      if (isSuccess(res) && shows(envelopeOf(res)?.data)) {
        own.push(path);
        break;
      }
    }
  }
  return own;
}
