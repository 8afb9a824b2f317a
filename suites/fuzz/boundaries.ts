/**
 * The boundary cases every run sends, whatever its seed: the deepest path of the tree, the longest
 * URL the generator makes, an empty segment (a doubled slash) in a real object's path, every
 * reserved character of RFC 3986 (and `%`) inside a real object's path, and the largest body the
 * generator makes. A verdict on them so never depends on the seed. All are reads, except the
 * largest body, which goes to the sentinel (a path that names nothing) where the profile allows
 * changing methods. The path boundaries of every read route (path-boundaries.ts) follow them.
 */
import { profileAllows } from '../../runner/config.js';
import { deepNesting } from './bodies.js';
import { LONG_LENGTHS } from './paths.js';
import { pathBoundaryPlan } from './path-boundaries.js';
import type { FuzzRequest, RequestOptions } from './requests.js';

/** RFC 3986 gen-delims and sub-delims, and the escape character itself. */
export const RESERVED_CHARACTERS = [':', '/', '?', '#', '[', ']', '@', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', '%'] as const;

const depth = (p: string): number => p.split('/').length;

/** The boundary requests for the target `opts.model` describes, always in the same order. */
export function boundaryRequests(opts: RequestOptions): FuzzRequest[] {
  const { model } = opts;
  const read = (path: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({
    family: 'boundary',
    method: 'GET',
    path,
    credentials: true,
    ...extra,
  });
  const deepest = [...model.nodes].sort((a, b) => depth(b) - depth(a) || a.localeCompare(b))[0] ?? model.root;
  // A real object (one with attributes) where there is one: its answer is a map, not a 404.
  const object = model.attrPairs[0]?.[0] ?? deepest;
  const [head, ...rest] = object.slice(1).split('/');
  const out: FuzzRequest[] = [
    read(deepest),
    read(`${deepest}/${'a'.repeat(Math.max(...LONG_LENGTHS))}`),
    read(`/${head}//${rest.join('/')}`),
    ...RESERVED_CHARACTERS.map((ch) =>
      read(`${object.slice(0, object.lastIndexOf('/') + 1)}${ch}${object.slice(object.lastIndexOf('/') + 1)}`),
    ),
    read(object, { body: deepNesting(5000), contentType: 'application/json' }),
    ...pathBoundaryPlan(model).requests,
  ];
  if (profileAllows(opts.profile, 'safe'))
    out.push({
      family: 'boundary',
      method: 'PUT',
      path: model.sentinel,
      body: deepNesting(5000),
      contentType: 'application/json',
      credentials: true,
    });
  return out;
}
