/**
 * Closed loop on autocannon: `connections` requests in flight, each sent when the one before it on
 * its connection answered. Latencies go into our microsecond histogram, not autocannon's.
 */
import autocannon from 'autocannon';
import { splitBaseUrl, type EngineOptions } from './engine.js';
import { Recorder, type RunFigures, type StopReason } from './recorder.js';
import type { HttpRequest } from './request-source.js';

export async function closedLoop(opts: EngineOptions): Promise<RunFigures> {
  const { origin, prefix } = splitBaseUrl(opts.baseUrl);
  // autocannon gives a connection no cap when its share of the request cap is 0.
  const connections = Math.max(1, Math.min(opts.connections, opts.maxRequests));
  let stoppedBy: StopReason = 'duration';
  let stopNote: string | undefined;
  let instance: autocannon.Instance | undefined;
  const stop = (reason: StopReason, note: string): void => {
    if (stoppedBy !== 'duration') return;
    stoppedBy = reason;
    stopNote = note;
    instance?.stop();
  };
  const recorder = new Recorder({
    abortErrorRate: opts.abortErrorRate,
    windowS: opts.windowS,
    onSecond: opts.onSecond,
    onAbort: (note) => stop('error-rate', note),
  });

  // Interrupted before it began: autocannon is not started at all.
  if (opts.signal?.aborted) {
    recorder.start();
    return recorder.finish('interrupted', 'interrupted by the user');
  }
  const fixed = opts.source.fixed;
  const first = fixed ?? opts.source.next();
  const tap = opts.tap;
  // The request each connection has in flight (autocannon sends one at a time per connection), for the tap.
  const sent = new WeakMap<object, HttpRequest>();
  const mixed: autocannon.Request = {
    // Called for every request a connection builds, so mixes and write values change per request.
    setupRequest: (req, context) => {
      const next = opts.source.next();
      if (tap && context) sent.set(context, next);
      return { ...req, method: next.method, path: prefix + next.path, body: next.body, headers: opts.headers(next) };
    },
    // Only with --verify: autocannon then keeps every body, which costs throughput.
    ...(tap && {
      onResponse: (status: number, body: string, context: object, headers: Record<string, string | string[] | undefined> | undefined) => {
        const req = sent.get(context);
        if (req && tap.wants(status)) tap.judge(req, status, lowerCased(headers ?? {}), body);
      },
    }),
  };
  let done!: () => void;
  let failed!: (err: Error) => void;
  const finished = new Promise<void>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  // The callback form returns the running instance (its events and stop()); the promise form does not.
  instance = autocannon(
    {
      url: origin + prefix + first.path,
      method: first.method,
      body: first.body,
      headers: opts.headers(first),
      ...(fixed && !tap ? {} : { requests: [mixed] }),
      connections,
      duration: opts.durationS,
      maxOverallRequests: opts.maxRequests,
      timeout: Math.max(1, Math.ceil(opts.timeoutMs / 1000)),
    },
    (err) => (err ? failed(err) : done()),
  );
  instance.on('response', (_client: unknown, statusCode: number, resBytes: number, responseTime: number) => {
    recorder.record({ latencyMs: responseTime, status: statusCode, bytes: resBytes });
  });
  instance.on('reqError', (err: Error) => {
    // Requests cut off by our own stop() are not the target's failures.
    if (stoppedBy !== 'duration') return;
    const timeout = /timed out/i.test(err.message);
    recorder.record({ latencyMs: timeout ? opts.timeoutMs : 0, bytes: 0, error: timeout ? 'timeout' : 'network' });
  });
  const onInterrupt = (): void => stop('interrupted', 'interrupted by the user');
  opts.signal?.addEventListener('abort', onInterrupt, { once: true });
  recorder.start();
  try {
    await finished;
  } finally {
    opts.signal?.removeEventListener('abort', onInterrupt);
  }
  if (stoppedBy === 'duration' && recorder.requests >= opts.maxRequests) {
    stoppedBy = 'request-cap';
    stopNote = recorder.capNote(opts.maxRequests, 'requests', opts.durationS);
  }
  return recorder.finish(stoppedBy, stopNote);
}

function lowerCased(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
