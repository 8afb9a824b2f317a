/**
 * Where an answer comes from: the route of the interface a request addressed (by method and path
 * shape, endpoints 1-13 of the spec) and whether it succeeded. The run-wide answers oracle names a
 * finding by it, and the simulator's answer faults break one statement at one such site
 * (`--fault NAME@ROUTE:OUTCOME`).
 */

export const SITE_ROUTES = [
  'login',
  'logout',
  'object',
  'attr',
  'children',
  'list',
  'enumerate',
  'put-attr',
  'put-object',
  'action',
  'delete',
  'upload',
  'upload-named',
] as const;

export type SiteRoute = (typeof SITE_ROUTES)[number];
export type SiteOutcome = 'ok' | 'error';
export const SITE_OUTCOMES: readonly SiteOutcome[] = ['ok', 'error'];

export interface Site {
  route: SiteRoute;
  outcome: SiteOutcome;
}

export function siteName(site: Site): string {
  return `${site.route}:${site.outcome}`;
}

export function parseSite(text: string): Site | undefined {
  const [route, outcome, ...rest] = text.split(':');
  if (rest.length > 0 || !(SITE_ROUTES as readonly string[]).includes(route ?? '')) return undefined;
  if (outcome !== 'ok' && outcome !== 'error') return undefined;
  return { route: route as SiteRoute, outcome };
}

/** The path of a request target, without its query. */
export function pathOf(url: string): string {
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The route a request addressed, read from its method and the shape of its path alone (no tree
 * knowledge: an object named "list" reads as a listing, which no test path is). Undefined for what
 * is no route of the interface: another method, the WebSocket, a path outside the shapes.
 */
export function routeOf(method: string, url: string): SiteRoute | undefined {
  const m = method.toUpperCase();
  const path = pathOf(url);
  if (!path.startsWith('/')) return undefined;
  if (path === '/login') return m === 'POST' ? 'login' : undefined;
  if (path === '/logout') return m === 'POST' ? 'logout' : undefined;
  if (path === '/upload/image') return m === 'POST' ? 'upload' : undefined;
  if (path.startsWith('/upload/image/')) return m === 'PUT' ? 'upload-named' : undefined;
  if (path === '/subscribe') return undefined;
  if (/\/action\/[^/]+$/.test(path)) return m === 'POST' ? 'action' : undefined;
  if (/\/attr\/[^/]+$/.test(path)) return m === 'GET' ? 'attr' : m === 'PUT' ? 'put-attr' : undefined;
  if (path.endsWith('/')) return m === 'GET' ? 'children' : undefined;
  if (path.endsWith('/list')) return m === 'GET' ? 'list' : undefined;
  if (path.endsWith('/enumerate')) return m === 'GET' ? 'enumerate' : undefined;
  if (m === 'GET') return 'object';
  if (m === 'PUT') return 'put-object';
  if (m === 'DELETE') return 'delete';
  return undefined;
}

/** The outcome an HTTP status tells: 2xx ok, 4xx and 5xx error; anything else is no outcome of a route. */
export function outcomeOf(status: number): SiteOutcome | undefined {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 400 && status < 600) return 'error';
  return undefined;
}
