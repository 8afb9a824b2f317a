/**
 * The upload loop (destructive profile only): upload a fresh image, wait for its version to appear,
 * delete it, check it is gone; again until the time or the cap is reached. One upload at a time:
 * bmcweb answers concurrent uploads with 503. The recorded latency is the upload request's.
 */
import { dataOf } from '../client/answer.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BmcClient } from '../client/http.js';
import { buildImage } from '../client/image.js';
import { Recorder, type Progress, type RunFigures, type StopReason } from './recorder.js';

export interface UploadLoopOptions {
  client: BmcClient;
  namespace: string;
  durationS: number;
  maxUploads: number;
  /** How long a version may take to appear after its upload answered. */
  versionWaitMs: number;
  abortErrorRate: number;
  onSecond?: (p: Progress) => void;
  signal?: AbortSignal;
}

export interface UploadFigures {
  uploaded: number;
  deleted: number;
  /** Versions this run created and could not remove: each is named so an operator can. */
  leftOver: string[];
}

export async function runUploadLoop(opts: UploadLoopOptions): Promise<{ figures: RunFigures; uploads: UploadFigures }> {
  // Retries of a 503 would hide it inside the latency: the load run shows it as it is.
  const client = opts.client.fork({ cookies: opts.client.exportCookies(), max503Retries: 0, connections: 1 });
  const uploads: UploadFigures = { uploaded: 0, deleted: 0, leftOver: [] };
  let stoppedBy: StopReason = 'duration';
  let stopNote: string | undefined;
  const recorder = new Recorder({
    abortErrorRate: opts.abortErrorRate,
    onSecond: opts.onSecond,
    onAbort: (note) => {
      stoppedBy = 'error-rate';
      stopNote = note;
    },
  });
  const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  recorder.start();
  try {
    for (let n = 0; recorder.elapsedMs() < opts.durationS * 1000; n++) {
      if (stoppedBy !== 'duration') break;
      if (opts.signal?.aborted) {
        stoppedBy = 'interrupted';
        stopNote = 'interrupted by the user';
        break;
      }
      if (n >= opts.maxUploads) {
        stoppedBy = 'request-cap';
        stopNote = recorder.capNote(opts.maxUploads, 'uploads', opts.durationS);
        break;
      }
      const image = await buildImage({ version: `bmc-conformance-load-${run}-${n}`, namespace: opts.namespace });
      const sentAt = performance.now();
      let id: unknown;
      try {
        const res = await client.upload(image);
        recorder.record({ latencyMs: performance.now() - sentAt, status: res.status, bytes: res.text.length });
        id = res.status === 200 ? dataOf(res) : undefined;
      } catch {
        recorder.record({ latencyMs: performance.now() - sentAt, bytes: 0, error: 'network' });
      }
      if (typeof id !== 'string' || id === '') continue;
      uploads.uploaded++;
      const version = `/xyz/${opts.namespace}/software/${id}`;
      if (await removeVersion(client, version, opts.versionWaitMs)) uploads.deleted++;
      else uploads.leftOver.push(version);
    }
  } finally {
    await client.close();
  }
  return { figures: recorder.finish(stoppedBy, stopNote), uploads };
}

/** Waits for the version to exist, deletes it and checks it is gone. */
async function removeVersion(client: BmcClient, version: string, waitMs: number): Promise<boolean> {
  const deadline = performance.now() + waitMs;
  while ((await client.get(version)).status !== 200) {
    if (performance.now() > deadline) return false;
    await sleep(200);
  }
  const res = await client.delete(version);
  return res.status === 200 && (await client.get(version)).status === 404;
}
