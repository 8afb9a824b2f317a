/** One bounded autocannon run: fixed connections, a time limit and a request cap. */
import autocannon from 'autocannon';

export interface LoadFigures {
  requests: number;
  durationS: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface LoadRequest {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
  /** Upper bound on requests, whatever the duration. */
  maxRequests: number;
  timeoutS?: number;
}

export async function autocannonRun(req: LoadRequest): Promise<LoadFigures> {
  const result = await autocannon({
    url: req.url,
    headers: { accept: 'application/json', ...req.headers },
    connections: req.connections,
    duration: req.durationS,
    // Not `amount`: autocannon lets amount override the duration; this caps requests within it.
    maxOverallRequests: Math.max(req.maxRequests, req.connections),
    timeout: req.timeoutS ?? 30,
  });
  const total = result.requests.total;
  return {
    requests: total,
    durationS: result.duration,
    requestsPerSecond: result.duration > 0 ? total / result.duration : 0,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
