/**
 * Path boundaries: every read route (an object, its children listing `/`, list, enumerate and an
 * attribute) with the last segment of its path at each boundary where a layer below the server (C
 * strings, a URL decoder, a case-folding lookup, a router that trims or splits) may cut, fold or
 * drop it: NUL and control characters, case, leading and trailing space and slash,
 * percent-encoding, non-ASCII and an overlong segment. Every run sends them first, whatever its
 * seed; the generated paths (paths.ts) come after. All are GETs: safe in every profile.
 *
 * The bound: routes × boundaries, 5 × 14 = 70 requests, on one object the tree chooses.
 */
import { createHash } from 'node:crypto';
import { USER_BOUNDARIES, userBoundary } from './login.js';
import type { TargetModel } from './model.js';
import type { FuzzRequest } from './requests.js';

/** The login generator's boundaries, and a leading slash (an empty segment before the last). */
export const PATH_BOUNDARIES = [...USER_BOUNDARIES, 'slash-start'] as const;
export type PathBoundary = (typeof PATH_BOUNDARIES)[number];

export const READ_ROUTES = ['object', 'children', 'list', 'enumerate', 'attr'] as const;
export type ReadRoute = (typeof READ_ROUTES)[number];

export function segmentBoundary(segment: string, b: PathBoundary): string {
  return b === 'slash-start' ? `/${segment}` : userBoundary(segment, b);
}

/**
 * The object the boundaries go to: one with attributes and children where the tree has one (every
 * route then has something to answer), else one with attributes, else the namespace root.
 */
export function boundaryObject(model: TargetModel): { path: string; attr?: string } {
  const withAttrs = [...new Set(model.attrPairs.map(([p]) => p))];
  const parents = new Set(model.parents);
  const path = withAttrs.find((p) => parents.has(p)) ?? withAttrs[0] ?? model.root;
  const attr = model.attrPairs.find(([p]) => p === path)?.[1];
  return { path, ...(attr !== undefined && { attr }) };
}

/** A route's path with its last segment at a boundary (the object's name, the route word, the attribute's name). */
export function routePath(object: string, attr: string | undefined, route: ReadRoute, b: PathBoundary): string | undefined {
  const segs = object.slice(1).split('/');
  switch (route) {
    case 'object':
      break;
    case 'children':
      // The object's name at the boundary, then the trailing slash that makes it the children route.
      return `/${[...segs.slice(0, -1), segmentBoundary(segs.at(-1)!, b)].join('/')}/`;
    case 'list':
    case 'enumerate':
      segs.push(route);
      break;
    case 'attr':
      if (attr === undefined) return undefined;
      segs.push('attr', attr);
      break;
  }
  segs[segs.length - 1] = segmentBoundary(segs.at(-1)!, b);
  return `/${segs.join('/')}`;
}

export interface PathBoundaryPlan {
  requests: FuzzRequest[];
  object: string;
  routes: number;
  boundaries: number;
  /** sha256 of the paths, first 16 hex digits: two runs with one digest sent the same. */
  digest: string;
}

export function pathBoundaryPlan(model: TargetModel): PathBoundaryPlan {
  const { path, attr } = boundaryObject(model);
  const routes = READ_ROUTES.filter((r) => r !== 'attr' || attr !== undefined);
  const requests = routes.flatMap((route) =>
    PATH_BOUNDARIES.map((b): FuzzRequest => ({
      family: `path-boundary ${route} ${b}`,
      method: 'GET',
      path: routePath(path, attr, route, b)!,
      credentials: true,
    })),
  );
  const digest = createHash('sha256')
    .update(requests.map((r) => r.path).join('\n'))
    .digest('hex')
    .slice(0, 16);
  return { requests, object: path, routes: routes.length, boundaries: PATH_BOUNDARIES.length, digest };
}
