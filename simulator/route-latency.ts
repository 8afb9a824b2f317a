/**
 * Slow routes (`--route-latency ROUTE=MS`): a real BMC answers some routes in seconds (a whole-tree
 * enumerate gathers every service's objects over D-Bus), so tests and the bench model that target's
 * slowest routes. A read route's cost is what it gathers: its answer is held for the delay when it
 * serves what was asked (status below 400), while a refusal (no session, no such path) comes at once,
 * as a real server checks the session and looks the path up before it gathers anything. Any other
 * route (and the WebSocket upgrade) takes its delay before the dialect serves the request, so a
 * write is done no sooner than it is answered.
 */
import type { ServerResponse } from 'node:http';
import { routeOf } from '../client/answer-site.js';

export const LATENCY_ROUTES = [
  'login',
  'logout',
  'object',
  'attr',
  'children',
  'list',
  'enumerate',
  'put',
  'action',
  'delete',
  'upload',
  'subscribe',
] as const;

export type LatencyRoute = (typeof LATENCY_ROUTES)[number];
export type RouteLatency = Partial<Record<LatencyRoute, number>>;

/** The most a route may be slowed by: ten minutes, a request's own time-out at the most. */
export const MAX_ROUTE_LATENCY_MS = 600_000;

/** `enumerate=3000` as a route and its delay, or a sentence saying what is wrong. */
export function parseRouteLatency(text: string): { route: LatencyRoute; ms: number } | string {
  const m = /^([a-z]+)=(\d+)$/.exec(text.trim());
  if (!m) return `expected ROUTE=MS, ROUTE one of ${LATENCY_ROUTES.join(', ')}.`;
  const route = m[1] as LatencyRoute;
  if (!LATENCY_ROUTES.includes(route)) return `unknown route ${m[1]}: one of ${LATENCY_ROUTES.join(', ')}.`;
  const ms = Number(m[2]);
  if (ms > MAX_ROUTE_LATENCY_MS) return `at most ${MAX_ROUTE_LATENCY_MS} milliseconds.`;
  return { route, ms };
}

/** The latency route of an HTTP request (a PUT of an attribute or an object is `put`, either upload `upload`). */
export function latencyRouteOf(method: string, url: string): LatencyRoute | undefined {
  const site = routeOf(method, url);
  if (site === 'put-attr' || site === 'put-object') return 'put';
  if (site === 'upload-named') return 'upload';
  return site;
}

/** The delay of a request, or of the WebSocket upgrade (`subscribe`); 0 for a route not slowed. */
export function routeDelayMs(latency: RouteLatency | undefined, method: string, url: string, upgrade = false): number {
  if (!latency) return 0;
  const route = upgrade ? 'subscribe' : latencyRouteOf(method, url);
  return route ? (latency[route] ?? 0) : 0;
}

/** The routes whose cost is gathering what they answer: a refusal of them is not slowed. */
const READ_ROUTES: ReadonlySet<LatencyRoute> = new Set(['object', 'attr', 'children', 'list', 'enumerate']);

/** Whether a request's delay is paid only by an answer that serves it (a read), or before it is served. */
export function isReadRoute(method: string, url: string): boolean {
  const route = latencyRouteOf(method, url);
  return route !== undefined && READ_ROUTES.has(route);
}

/**
 * Holds `res`'s answer until `delayMs` after now when its status is below 400; a refusal goes out
 * as soon as it is written. The head and body are sent together, in the order they were written.
 */
export function holdServedAnswer(res: ServerResponse, delayMs: number, sleep: (ms: number) => Promise<void>): void {
  const due = performance.now() + delayMs;
  type Call = () => unknown;
  const calls: Call[] = [];
  let held: boolean | undefined;
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  const decide = (status: number): boolean => (held ??= status < 400);
  res.writeHead = ((...a: unknown[]) => {
    if (!decide(a[0] as number)) return writeHead(...a);
    calls.push(() => writeHead(...a));
    return res;
  }) as typeof res.writeHead;
  res.write = ((...a: unknown[]) => {
    if (!decide(res.statusCode)) return write(...a);
    calls.push(() => write(...a));
    return true;
  }) as typeof res.write;
  res.end = ((...a: unknown[]) => {
    if (!decide(res.statusCode)) return end(...a);
    calls.push(() => end(...a));
    void sleep(Math.max(0, due - performance.now())).then(() => {
      if (res.destroyed) return;
      for (const call of calls) call();
    });
    return res;
  }) as typeof res.end;
}
