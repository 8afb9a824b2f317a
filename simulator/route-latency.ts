/**
 * Slow routes (`--route-latency ROUTE=MS`): a real BMC answers some routes in seconds (a whole-tree
 * enumerate gathers every service's objects over D-Bus), so tests and the bench model that target's
 * slowest routes. The delay is taken before the dialect serves the request (or the WebSocket upgrade).
 */
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
