/**
 * The answer faults (simulator/answer-faults.ts) and the event faults (simulator/event-site-faults.ts)
 * at their sites in the mutation self-test: each pair runs the one area whose traffic reaches its
 * site at the least cost, with the run-wide oracle behind it, which must catch it there. Which areas
 * reach which answer sites was read from the clean simulator's runs (`run --only AREA`): the
 * envelope area's sample reads every read route and logs in and out, with and without credentials;
 * writes, actions, delete and upload reach their own; the auth area sends every route without
 * credentials. The event sites: see EVENT_SITE_AREA.
 */
import type { Area } from '../../catalogue/requirements.js';
import type { FaultInfo } from '../../simulator/fault-info.js';
import { FAULTS } from '../../simulator/faults.js';
import { allSiteFaults, siteFaultName, type SiteFault } from '../../simulator/answer-faults.js';
import { siteName, SITE_OUTCOMES, SITE_ROUTES } from '../../client/answer-site.js';
import { eventSiteName } from '../../client/event-site.js';
import {
  reachedEventSiteFaults,
  eventSiteFaultName,
  eventSiteRequirement,
  type EventSiteFault,
  type EventSiteFaultName,
} from '../../simulator/event-site-faults.js';

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

/**
 * Which area's traffic reaches each event site at the least cost, read from runs of every pair in
 * both areas that reach event sites. The events area writes attributes (put-attr) under
 * subscriptions of every filter shape, uploads a version watched by `{}` (EV-3) and requests a host
 * transition watched by `{}` (EV-9); the stateful area writes attributes and whole objects, uploads
 * and downloads by TFTP (an action), under a `{}` witness and subscriptions of every shape (its
 * versions check's filters name the version interface). No area of today subscribes by path to a
 * version before it appears, nor watches a host transition with a filter other than `{}`: the
 * upload and action sites of those shapes are reached by no check of their own.
 */
const EVENT_SITE_AREA: Readonly<Record<string, Area>> = {
  'put-attr:empty': 'events',
  'put-attr:paths': 'events',
  'put-attr:interfaces': 'events',
  'put-attr:both': 'events',
  'put-object:empty': 'events',
  'put-object:paths': 'events',
  'put-object:interfaces': 'events',
  'put-object:both': 'events',
  'upload:empty': 'events',
  'upload:paths': 'stateful',
  'upload:interfaces': 'stateful',
  'upload:both': 'stateful',
  'action:empty': 'stateful',
  'action:paths': 'events',
  'action:interfaces': 'stateful',
  'action:both': 'events',
};

/**
 * Pairs whose site the events area reaches but whose operator only the stateful area's checks see:
 * its `{}` witness and its subscriptions judge every event they receive, the events area's only
 * those of the stream a check measures.
 */
const EVENT_PAIR_AREA: Readonly<Record<string, Area>> = {
  'event-duplicated@upload:empty': 'stateful',
};

export function eventSiteArea(f: EventSiteFault): Area {
  const area = EVENT_PAIR_AREA[eventSiteFaultName(f)] ?? EVENT_SITE_AREA[eventSiteName(f.site)];
  if (!area) throw new Error(`no area reaches the event site ${eventSiteName(f.site)}`);
  return area;
}

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
  return [...answerSitePairs(), ...eventSitePairs()];
}

function answerSitePairs(): SitePair[] {
  return allSiteFaults().map((f) => ({
    name: siteFaultName(f),
    requirement: f.fault.requirement,
    operator: f.fault.operator,
    description: `${f.fault.description}, at ${siteName(f.site)}`,
    area: siteArea(f),
  }));
}

export function eventSitePairs(): SitePair[] {
  return reachedEventSiteFaults().map((f) => {
    const knockOn = eventKnockOns(f);
    return {
      name: eventSiteFaultName(f),
      requirement: eventSiteRequirement(f),
      operator: f.fault.operator,
      description: `${f.fault.description}, at ${eventSiteName(f.site)}`,
      area: eventSiteArea(f),
      ...(Object.keys(knockOn).length > 0 && { knockOn }),
    };
  });
}

/** A change whose event is lost, repeated or misreported breaks "each change pushed exactly once" too. */
const MISSING = 'a change its filter admits never arrives: a missing event (EV-8: none missing)';
/** What the plain events-duplicated declares of EV-2: a copy after the next write was sent is the old value anew. */
const DUPLICATE_AFTER_NEXT_WRITE = FAULTS.find((f) => f.name === 'events-duplicated')!.knockOn!['EV-2']!;
const MISREAD = 'the event of a change carries the value of the change before it: read by value, a change arrives twice and another never';

/** The other statements a pair breaks, each with its reason (what the mutation self-test holds against precision). */
function eventKnockOns(f: EventSiteFault): Record<string, string> {
  const adds = f.site.cause === 'upload' || f.site.cause === 'action';
  switch (f.fault.name as EventSiteFaultName) {
    case 'event-dropped':
      return {
        'EV-8': MISSING,
        ...(adds && { 'EV-3': 'the InterfacesAdded of the new version never arrives where its filter admits it' }),
        // The events area's first subscription lists the path its priming writes change.
        ...(f.site.cause === 'put-attr' &&
          f.site.shape === 'paths' && { 'EP-14': "a paths filter receives none of the writes' changes: no event at all arrives on it" }),
      };
    case 'event-stale-value':
      return {
        'EV-8': MISREAD,
        // The isolation check waits for its write's value on the subscriber it then closes.
        ...(f.site.cause === 'put-attr' &&
          f.site.shape === 'paths' && {
            'EV-10':
              "the events area's isolation check waits, on the paths subscriber it closes, for the value it wrote, which a stale event never carries",
          }),
      };
    case 'event-duplicated':
      return f.site.cause === 'upload' ? {} : { 'EV-2': DUPLICATE_AFTER_NEXT_WRITE };
    case 'event-phantom-change':
      return {
        'EV-8': 'each change comes with one more event of its property: read by value, a change the writes did not make, or one twice',
      };
    default:
      return {};
  }
}

/**
 * One answer pair per site for `npm test`, the operator turning with the site so that every
 * operator runs at two or more sites, and the sampled event pairs: `npm run mutation` runs every
 * pair (`simulate --list-faults --sites`).
 */
export function sampledSitePairs(): string[] {
  const pairs = answerSitePairs();
  const answers = SITE_ROUTES.flatMap((route, r) =>
    SITE_OUTCOMES.map((outcome) => {
      const here = pairs.filter((p) => p.name.endsWith(`@${route}:${outcome}`));
      // Successes and errors start half the operators apart, so that both see each of them.
      return here[(r + (outcome === 'error' ? 5 : 0)) % here.length]!.name;
    }),
  );
  return [...answers, ...SAMPLED_EVENT_PAIRS];
}

/**
 * The event pairs `npm test` runs: each operator once, and each filter shape; in the events area
 * (its runs take a few seconds) where its checks kill the operator, else in the stateful area.
 */
export const SAMPLED_EVENT_PAIRS: readonly string[] = [
  'event-dropped@put-attr:both',
  'event-dropped@put-attr:interfaces',
  'event-duplicated@put-attr:paths',
  'event-wrong-path@upload:empty',
  'event-stale-value@put-object:empty',
  'event-phantom-change@put-object:empty',
];
