/**
 * What a run against each field dialect must give, requirement by requirement. Every FAIL is a
 * true deviation of that server (named here, with its source in profiles/<server>.json); every
 * WARN a rendering the spec only shows by example; everything not listed is PASS.
 */
import type { Verdict } from '../../client/results.js';

export interface Expected {
  verdict: Extract<Verdict, 'FAIL' | 'WARN'>;
  /** The deviation the verdict stands for. */
  deviation: string;
}

export const PHOSPHOR_REST: Readonly<Record<string, Expected>> = {
  'OBJ-8': { verdict: 'FAIL', deviation: 'attribute names match in any case' },
  'EP-6': { verdict: 'FAIL', deviation: 'list leaves out nodes without interfaces that the children listing names' },
  'RULE-1': { verdict: 'FAIL', deviation: 'GET / answers 404' },
  'EP-9': { verdict: 'FAIL', deviation: 'PUT of a whole object answers 500' },
  'RULE-2': { verdict: 'FAIL', deviation: 'a GET body put back answers 500' },
  'WR-1': { verdict: 'FAIL', deviation: 'wrongly typed values are coerced and taken; out of range answers 500' },
  'RULE-4': { verdict: 'FAIL', deviation: 'a creating POST answers 405' },
  'EV-6': { verdict: 'FAIL', deviation: 'paths and interfaces filters are ANDed' },
  'ERR-5': { verdict: 'FAIL', deviation: 'nested arrays in a login, a PUT without data answer 500' },
  'EP-4': { verdict: 'WARN', deviation: 'attr/ renders booleans 0/1, the object map true/false' },
  'OBJ-3': { verdict: 'WARN', deviation: 'Cached, FieldReplaceable, Present as JSON booleans' },
};

/** What every bmcweb version gives: the same handlers for GET, PUT, POST, DELETE, /subscribe and PAM since 2023. */
const BMCWEB_ANY_VERSION: Readonly<Record<string, Expected>> = {
  'ENV-2': { verdict: 'FAIL', deviation: 'a 500 carries the message "400 Bad Request"' },
  'RULE-1': { verdict: 'FAIL', deviation: 'GET / answers 404' },
  'EP-9': { verdict: 'FAIL', deviation: 'PUT of a whole object answers 403' },
  'RULE-2': { verdict: 'FAIL', deviation: 'a GET body put back answers 403' },
  'WR-1': { verdict: 'FAIL', deviation: 'a wrongly typed PUT answers 500' },
  'RULE-4': { verdict: 'FAIL', deviation: 'a creating POST answers 405' },
  'RULE-5': { verdict: 'FAIL', deviation: 'DELETE without the Delete interface answers 404' },
  'EV-1': { verdict: 'FAIL', deviation: 'a filter without paths closes the socket' },
  'EV-3': { verdict: 'FAIL', deviation: 'InterfacesAdded names the ObjectManager, not the new object' },
  'EV-4': { verdict: 'FAIL', deviation: "a paths filter matches with path_namespace: a listed path's parent admits it" },
  'EV-5': { verdict: 'FAIL', deviation: 'an interfaces filter without paths closes the socket' },
  'EV-6': { verdict: 'FAIL', deviation: 'paths and interfaces filters are ANDed' },
  'OBJ-3': { verdict: 'WARN', deviation: 'Cached, FieldReplaceable, Present as JSON booleans' },
  'EP-4': { verdict: 'FAIL', deviation: 'attr/ of an empty array answers 404 "The specified property cannot be found"; the map says []' },
  'AUTH-4': { verdict: 'FAIL', deviation: 'a user name with a NUL logs in as the name before it (PAM reads a C string)' },
};

/** bmcweb as upstream master of 2026. */
export const BMCWEB: Readonly<Record<string, Expected>> = {
  ...BMCWEB_ANY_VERSION,
  'EP-1': { verdict: 'FAIL', deviation: "the spec's login body answers 400" },
  'ENV-4': { verdict: 'FAIL', deviation: 'GET of a path node without interfaces answers 200 with an empty body' },
};

/** bmcweb as built in June 2023 (commit 8d69c668d9be): the spec's login works; bare refusals carry their reason phrase. */
export const BMCWEB_2023: Readonly<Record<string, Expected>> = {
  ...BMCWEB_ANY_VERSION,
  'ENV-4': { verdict: 'FAIL', deviation: 'refusals and 404s carry their reason phrase as a plain-text body without a Content-Type' },
  'ERR-5': { verdict: 'FAIL', deviation: 'a request head over 8192 bytes (an overlong path segment) drops the connection unanswered' },
};
