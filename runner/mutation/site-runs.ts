/**
 * The answer faults at their sites (simulator/answer-faults.ts) in the mutation self-test: each pair
 * runs the one area whose traffic reaches its site at the least cost, with the run-wide oracle
 * behind it, which must catch it there. Which areas reach which sites was read from the clean
 * simulator's runs (`run --only AREA`): the envelope area's sample reads every read route and logs
 * in and out, with and without credentials; writes, actions, delete and upload reach their own; the
 * auth area sends every route without credentials.
 */
import type { Area } from '../../catalogue/requirements.js';
import type { FaultInfo } from '../../simulator/fault-info.js';
import { allSiteFaults, siteFaultName, type SiteFault } from '../../simulator/answer-faults.js';
import { siteName, SITE_OUTCOMES, SITE_ROUTES } from '../../client/answer-site.js';

const SITE_AREA: Readonly<Record<string, Area>> = {
  'login:ok': 'envelope',
  'login:error': 'errors',
  'logout:ok': 'envelope',
  'logout:error': 'envelope',
  'object:ok': 'envelope',
  'object:error': 'envelope',
  'attr:ok': 'envelope',
  'attr:error': 'envelope',
  'children:ok': 'envelope',
  'children:error': 'errors',
  'list:ok': 'envelope',
  'list:error': 'auth',
  'enumerate:ok': 'envelope',
  'enumerate:error': 'errors',
  'put-attr:ok': 'writes',
  'put-attr:error': 'writes',
  'put-object:ok': 'writes',
  'put-object:error': 'writes',
  'action:ok': 'actions',
  'action:error': 'actions',
  'delete:ok': 'delete',
  'delete:error': 'delete',
  'upload:ok': 'upload',
  'upload:error': 'upload',
  'upload-named:ok': 'upload',
  'upload-named:error': 'auth',
};

/** The area whose run must catch the pair: a leak shows only in a refusal of a request without credentials. */
export function siteArea(f: SiteFault): Area {
  if (f.fault.requirement === 'AUTH-5') return f.site.route === 'logout' ? 'envelope' : 'auth';
  const area = SITE_AREA[siteName(f.site)];
  if (!area) throw new Error(`no area reaches the site ${siteName(f.site)}`);
  return area;
}

/** A pair as the self-test judges a fault. */
export interface SitePair extends FaultInfo {
  area: Area;
}

export function sitePairs(): SitePair[] {
  return allSiteFaults().map((f) => ({
    name: siteFaultName(f),
    requirement: f.fault.requirement,
    operator: f.fault.operator,
    description: `${f.fault.description}, at ${siteName(f.site)}`,
    area: siteArea(f),
  }));
}

/**
 * One pair per site for `npm test`, the operator turning with the site so that every operator runs
 * at two or more sites: `npm run mutation` runs every pair (`simulate --list-faults --sites`).
 */
export function sampledSitePairs(): string[] {
  const pairs = sitePairs();
  return SITE_ROUTES.flatMap((route, r) =>
    SITE_OUTCOMES.map((outcome) => {
      const here = pairs.filter((p) => p.name.endsWith(`@${route}:${outcome}`));
      // Successes and errors start half the operators apart, so that both see each of them.
      return here[(r + (outcome === 'error' ? 5 : 0)) % here.length]!.name;
    }),
  );
}
