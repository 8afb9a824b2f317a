/** Faults of well-formed listings and object reads. */
import type { FaultInfo } from './fault-info.js';

/** listing-first-page-only: the children one GET {path}/ answers. */
export const LISTING_PAGE = 4;

const UNREACHED = 'repeated listing from / cannot reach what a children listing leaves out';

export const LISTING_FAULTS = [
  {
    name: 'listing-omits-last',
    operator: 'omit',
    requirement: 'EP-5',
    description: 'GET {path}/ leaves its last child out when it has two or more',
    knockOn: { 'RULE-1': UNREACHED },
  },
  {
    name: 'listing-first-page-only',
    operator: 'narrow',
    requirement: 'EP-5',
    description: `GET {path}/ answers only its first ${LISTING_PAGE} children, as a server that pages its listings without saying so`,
    knockOn: { 'RULE-1': UNREACHED },
  },
  {
    name: 'object-omits-empty-strings',
    operator: 'omit',
    requirement: 'EP-3',
    description: 'GET {path} leaves out attributes whose value is the empty string, as a serializer that skips empty values',
    knockOn: {
      'EP-8':
        "the write property's boundaries write the empty string to a string attribute (a fixed case at every seed): accepted, it then reads back missing from the object",
    },
  },
  {
    name: 'object-uint64-rounded',
    operator: 'lossy',
    requirement: 'EP-3',
    description: 'GET {path} renders integers beyond 2^53 through a double, where attr/{name} and enumerate keep them',
  },
] as const satisfies readonly FaultInfo[];
