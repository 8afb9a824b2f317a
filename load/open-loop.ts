/**
 * Open loop on undici: requests leave at the planned rate whether or not earlier ones answered, and
 * each latency is measured from the time the request was due to leave. A target that stalls thus
 * shows every request it held back, not just the one in flight (coordinated omission corrected).
 */
import { Pool } from 'undici';
import { splitBaseUrl, type EngineOptions } from './engine.js';
import { LatencyHistogram, type LatencySummary } from './histogram.js';
import { Recorder, type Outcome, type RunFigures, type StopReason } from './recorder.js';

/** One constant-rate stretch of an open-loop run. */
export interface RateStep {
  rate: number;
  durationS: number;
}

export interface StepFigures extends RateStep {
  /** Requests due in this step. */
  requests: number;
  failed: number;
  latency: LatencySummary;
}

export interface OpenLoopFigures extends RunFigures {
  steps: StepFigures[];
  /** How late the generator sent requests against their due time: high values mean it, not the target, was the limit. */
  sendLagMs: LatencySummary;
}

class StepCounts {
  requests = 0;
  failed = 0;
  readonly latency = new LatencyHistogram();
}

export async function openLoop(opts: EngineOptions, steps: readonly RateStep[]): Promise<OpenLoopFigures> {
  if (steps.length === 0 || steps.some((s) => !(s.rate > 0) || !(s.durationS > 0)))
    throw new RangeError('An open-loop run needs steps with a positive rate and duration.');
  const { origin, prefix } = splitBaseUrl(opts.baseUrl);
  const pool = new Pool(origin, {
    connections: opts.connections,
    connect: { rejectUnauthorized: !opts.insecure, timeout: Math.min(opts.timeoutMs, 10_000) },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
  let stoppedBy: StopReason | undefined;
  let stopNote: string | undefined;
  const stop = (reason: StopReason, note?: string): void => {
    if (stoppedBy) return;
    stoppedBy = reason;
    stopNote = note;
  };
  const recorder = new Recorder({
    abortErrorRate: opts.abortErrorRate,
    windowS: opts.windowS,
    onSecond: opts.onSecond,
    onAbort: (note) => stop('error-rate', note),
  });
  const stepCounts = steps.map(() => new StepCounts());
  const sendLag = new LatencyHistogram();
  const inFlight = new Set<Promise<void>>();
  /** Set when the run drops its requests in flight: their errors are of its making, not the target's. */
  let abandoning = false;
  let abandoned = 0;
  const onInterrupt = (): void => stop('interrupted', 'interrupted by the user');
  opts.signal?.addEventListener('abort', onInterrupt, { once: true });
  // A signal aborted already fires no event: the run must still not start.
  if (opts.signal?.aborted) onInterrupt();

  const send = (due: number, step: StepCounts, rate: number): void => {
    const req = opts.source.next();
    sendLag.recordMs(performance.now() - due);
    const done = (o: Outcome): void => {
      recorder.record(o);
      step.requests++;
      if (o.status === undefined || o.status < 200 || o.status > 299) step.failed++;
      if (o.status !== undefined || o.error === 'timeout') step.latency.recordMs(o.latencyMs);
    };
    const p = pool
      .request({
        path: prefix + req.path,
        method: req.method,
        headers: opts.headers(req),
        body: req.body,
        signal: AbortSignal.timeout(opts.timeoutMs),
      })
      .then(async (res) => {
        let bytes = headerBytes(res.headers);
        const judged = opts.tap?.wants(res.statusCode) ? ([] as Buffer[]) : undefined;
        for await (const chunk of res.body) {
          bytes += (chunk as Buffer).length;
          judged?.push(chunk as Buffer);
        }
        if (judged) opts.tap!.judge(req, res.statusCode, res.headers, Buffer.concat(judged).toString('utf8'), rate);
        done({ latencyMs: performance.now() - due, status: res.statusCode, bytes });
      })
      .catch((err: unknown) => {
        if (abandoning) {
          abandoned++;
          return;
        }
        const timeout = err instanceof Error && (err.name === 'TimeoutError' || /timeout/i.test(err.message));
        done({ latencyMs: performance.now() - due, bytes: 0, error: timeout ? 'timeout' : 'network' });
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const plannedS = steps.reduce((t, s) => t + s.durationS, 0);
  recorder.start();
  const start = performance.now();
  await new Promise<void>((resolve) => {
    let stepIndex = 0;
    let stepEnd = start + steps[0]!.durationS * 1000;
    let due = start;
    let issued = 0;
    const loop = (): void => {
      const now = performance.now();
      // Send everything that is due: when the generator itself falls behind, the lag counts.
      while (!stoppedBy && due <= now) {
        if (issued >= opts.maxRequests) {
          stop('request-cap', recorder.capNote(opts.maxRequests, 'requests', plannedS));
          break;
        }
        send(due, stepCounts[stepIndex]!, steps[stepIndex]!.rate);
        issued++;
        due += 1000 / steps[stepIndex]!.rate;
        while (due >= stepEnd && !stoppedBy) {
          if (++stepIndex >= steps.length) stop('duration');
          else {
            due = Math.max(due, stepEnd);
            stepEnd += steps[stepIndex]!.durationS * 1000;
          }
        }
      }
      if (stoppedBy) resolve();
      else setTimeout(loop, Math.max(0, due - performance.now()));
    };
    loop();
  });
  opts.signal?.removeEventListener('abort', onInterrupt);
  // Requests still out are bounded by their own timeout; an interrupted run does not wait for them.
  if (stoppedBy === 'interrupted' || stoppedBy === 'error-rate') {
    abandoning = true;
    await pool.destroy().catch(() => undefined);
  }
  await Promise.allSettled([...inFlight]);
  await pool.close().catch(() => undefined);
  if (abandoned > 0) stopNote = `${stopNote ?? 'stopped'}; ${abandoned} request(s) in flight abandoned, not counted`;
  const figures = recorder.finish(stoppedBy ?? 'duration', stopNote);
  return {
    ...figures,
    steps: steps.map((s, i) => ({
      ...s,
      requests: stepCounts[i]!.requests,
      failed: stepCounts[i]!.failed,
      latency: stepCounts[i]!.latency.summary(),
    })),
    sendLagMs: sendLag.summary(),
  };
}

/** Approximate bytes of the status line and headers, so bytes/s compares with autocannon's count. */
function headerBytes(headers: Record<string, string | string[] | undefined>): number {
  let n = 17;
  for (const [name, value] of Object.entries(headers)) {
    for (const v of Array.isArray(value) ? value : [value ?? '']) n += name.length + v.length + 4;
  }
  return n + 2;
}
