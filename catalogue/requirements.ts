/**
 * The requirement catalogue: the one table that links the spec, the tests and the report.
 *
 * Each entry is one testable statement of `shared/spec/management-rest-interface.md`, in our own
 * words. IDs are stable: tests name them, simulator faults name them, reports key on them.
 *
 * Levels:
 * - MUST: stated by the spec; a violation is a FAIL.
 * - SAFETY: not spelled out, but every sane target keeps it (refusals leak nothing, bad input gives
 *   no 5xx); a violation is a FAIL.
 * - OBSERVE: left open by the spec; the behaviour is recorded as an observation, never failed.
 */

export type Level = 'MUST' | 'SAFETY' | 'OBSERVE';

/** One suite file per area; `--only` takes these names. */
export const AREAS = [
  'auth',
  'envelope',
  'objects',
  'listings',
  'writes',
  'delete',
  'upload',
  'events',
  'actions',
  'errors',
  'fuzz',
  'stateful',
] as const;
export type Area = (typeof AREAS)[number];

/** The area of a suite file (`suites/fuzz/fuzz.suite.ts` or its compiled `.js`): the one `--only` names; undefined for another file. */
export function areaOfSuiteFile(file: string): Area | undefined {
  const name = /([a-z-]+)\.suite\.[jt]s$/.exec(file)?.[1];
  return (AREAS as readonly string[]).includes(name ?? '') ? (name as Area) : undefined;
}

export interface Requirement {
  id: string;
  /** Section of the spec the statement comes from. */
  section: string;
  /** Suite file that owns the requirement (others may test it too). */
  area: Area;
  level: Level;
  /** Our paraphrase of the rule. */
  title: string;
}

export const REQUIREMENTS: readonly Requirement[] = [
  // --- Authentication and the login/logout endpoints -------------------------------------------
  {
    id: 'EP-1',
    section: 'Endpoints #1, Authentication 1-2',
    area: 'auth',
    level: 'MUST',
    title: 'POST /login with {"data": [user, password]} answers 200 ok and sets the credentials as a cookie that later requests carry',
  },
  {
    id: 'EP-2',
    section: 'Endpoints #2, Authentication 3',
    area: 'auth',
    level: 'MUST',
    title: 'POST /logout with {"data": []} ends the session: its credentials are refused afterwards',
  },
  {
    id: 'AUTH-1',
    section: 'What the service does 4, Authentication 1',
    area: 'auth',
    level: 'MUST',
    title:
      'Every request except /login without credentials is refused: object, attribute, listing, list, enumerate, write, action and delete routes',
  },
  {
    id: 'AUTH-2',
    section: 'Authentication 2',
    area: 'auth',
    level: 'MUST',
    title: 'An image upload (POST and PUT) without credentials is refused and registers nothing',
  },
  {
    id: 'AUTH-3',
    section: 'Authentication 2, Events/Subscription 1',
    area: 'auth',
    level: 'MUST',
    title: 'A WebSocket /subscribe without a login is refused (handshake refused or socket closed) and delivers no event',
  },
  {
    id: 'AUTH-4',
    section: 'Authentication 1',
    area: 'auth',
    level: 'SAFETY',
    title: 'A login with a wrong password, an unknown user or a malformed body yields no working session',
  },
  {
    id: 'AUTH-5',
    section: 'Authentication',
    area: 'auth',
    level: 'SAFETY',
    title: 'A refused request carries no object data (no attribute values, no paths of the tree)',
  },
  {
    id: 'AUTH-6',
    section: 'Authentication 5',
    area: 'auth',
    level: 'OBSERVE',
    title: 'Cookie name and attributes, the status of a refused request, and session behaviour are recorded',
  },
  {
    id: 'TLS-1',
    section: 'What the service does 1, Authentication 4',
    area: 'auth',
    level: 'MUST',
    title: 'The service is reached over HTTPS (TLS) and the event channel over wss',
  },

  // --- Response envelope --------------------------------------------------------------------
  {
    id: 'ENV-1',
    section: 'Response envelope',
    area: 'envelope',
    level: 'MUST',
    title: 'Every JSON response has the members data, message and status',
  },
  {
    id: 'ENV-2',
    section: 'Response envelope',
    area: 'envelope',
    level: 'MUST',
    title: 'message is the HTTP status line text "<code> <reason>" of the response it is in',
  },
  {
    id: 'ENV-3',
    section: 'Response envelope, Errors 1 and 3',
    area: 'envelope',
    level: 'MUST',
    title: 'status is "ok" on success and "error" on failure, in agreement with the HTTP code',
  },
  {
    id: 'ENV-4',
    section: 'What the service does 5',
    area: 'envelope',
    level: 'MUST',
    title: 'Responses to JSON requests are JSON (Content-Type application/json) and parse as JSON',
  },

  // --- Objects and reads ----------------------------------------------------------------------
  {
    id: 'EP-3',
    section: 'Endpoints #3',
    area: 'objects',
    level: 'MUST',
    title: 'GET {path} (no trailing slash) answers with data as a map of attribute name to value',
  },
  {
    id: 'EP-4',
    section: 'Endpoints #4',
    area: 'objects',
    level: 'MUST',
    title: "GET {path}/attr/{name} answers with the bare attribute value, equal to the value in the object's map",
  },
  {
    id: 'OBJ-1',
    section: 'Object',
    area: 'objects',
    level: 'MUST',
    title: 'Objects are addressed by absolute paths beginning with /xyz/{ns}/',
  },
  {
    id: 'OBJ-2',
    section: 'Top-level children of /xyz/{ns}/',
    area: 'objects',
    level: 'MUST',
    title: 'The 11 top-level children dump, software, control, network, logging, sensors, inventory, user, time, led and state are present',
  },
  {
    id: 'OBJ-3',
    section: 'Inventory system object',
    area: 'objects',
    level: 'MUST',
    title:
      'inventory/system has AssetTag, BuildDate, Manufacturer, Model, PartNumber, PrettyName, SerialNumber (strings) and Cached, FieldReplaceable, Present (0 or 1)',
  },
  {
    id: 'OBJ-4',
    section: 'Time objects',
    area: 'objects',
    level: 'MUST',
    title:
      'time/bmc and time/host have an integer Elapsed; time/owner TimeOwner and time/sync_method TimeSyncMethod are enumerated strings of their xyz.{ns} enumerations',
  },
  {
    id: 'OBJ-5',
    section: 'Host state object',
    area: 'objects',
    level: 'MUST',
    title:
      'state/host0 has an integer AttemptsLeft and BootProgress, CurrentHostState, OperatingSystemState, RequestedHostTransition as enumerated strings of their xyz.{ns} enumerations',
  },
  {
    id: 'OBJ-6',
    section: 'Other objects shown by name only',
    area: 'objects',
    level: 'MUST',
    title: 'network/config, network/config/dhcp, network/eth0, network/host0/intf, network/host0/intf/addr and software exist as objects',
  },
  {
    id: 'OBJ-7',
    section: 'Other objects shown by name only',
    area: 'objects',
    level: 'MUST',
    title: 'Event records are objects logging/entry/<id> with an integer id',
  },
  {
    id: 'OBJ-8',
    section: 'Object',
    area: 'objects',
    level: 'MUST',
    title: 'Attribute names are case-sensitive: a name differing only in case does not address the attribute',
  },
  {
    id: 'VER-1',
    section: 'Versioning, Limits',
    area: 'objects',
    level: 'OBSERVE',
    title: 'Version markers, server identification, extra top-level children and value encodings are recorded',
  },

  // --- Listings ------------------------------------------------------------------------------
  {
    id: 'EP-5',
    section: 'Endpoints #5',
    area: 'listings',
    level: 'MUST',
    title: 'GET {path}/ (trailing slash) answers with an array of the absolute paths of the direct children',
  },
  {
    id: 'EP-6',
    section: 'Endpoints #6',
    area: 'listings',
    level: 'MUST',
    title: 'GET {path}/list answers with an array of all descendant paths, recursively',
  },
  {
    id: 'EP-7',
    section: 'Endpoints #7',
    area: 'listings',
    level: 'MUST',
    title: "GET {path}/enumerate answers with a map of descendant path to its attribute map, equal to each object's GET",
  },
  {
    id: 'RULE-1',
    section: 'Endpoints rule 1',
    area: 'listings',
    level: 'MUST',
    title:
      'Without a trailing slash GET returns attributes, with one it lists children; / lists the top and repeated listing from it discovers every object',
  },

  // --- Writes ----------------------------------------------------------------------------------
  {
    id: 'EP-8',
    section: 'Endpoints #8',
    area: 'writes',
    level: 'MUST',
    title: 'PUT {path}/attr/{name} with {"data": value} updates that one attribute (it reads back equal)',
  },
  {
    id: 'EP-9',
    section: 'Endpoints #9',
    area: 'writes',
    level: 'MUST',
    title: 'PUT {path} with the complete attribute map updates the object',
  },
  {
    id: 'RULE-2',
    section: 'Endpoints rule 2',
    area: 'writes',
    level: 'MUST',
    title: 'A GET response with message and status removed is accepted as a PUT body',
  },
  {
    id: 'RULE-3',
    section: 'Endpoints rule 3',
    area: 'writes',
    level: 'MUST',
    title: 'PUT on an object requires the complete object (a partial map is refused and changes nothing); PATCH is not implemented',
  },
  {
    id: 'WR-1',
    section: 'Endpoints #8',
    area: 'writes',
    level: 'SAFETY',
    title: 'A PUT of a wrongly typed value is refused without a 5xx and leaves the value unchanged',
  },
  {
    id: 'STATE-1',
    section: 'States and transitions',
    area: 'writes',
    level: 'MUST',
    title: 'RequestedHostTransition is writable with the Transition values: writing it sets the requested value',
  },
  {
    id: 'STATE-2',
    section: 'States and transitions',
    area: 'writes',
    level: 'OBSERVE',
    title: 'The effect of a requested transition on CurrentHostState is recorded',
  },

  // --- Actions --------------------------------------------------------------------------------
  {
    id: 'EP-10',
    section: 'Endpoints #10',
    area: 'actions',
    level: 'MUST',
    title: 'POST {path}/action/{method} with {"data": [args]} calls the method and answers 200 ok',
  },
  {
    id: 'ACT-1',
    section: 'Endpoints rule 6',
    area: 'actions',
    level: 'MUST',
    title: 'software/action/DownloadViaTFTP takes [file, server], downloads the tarball and registers it as a software version',
  },
  {
    id: 'ACT-2',
    section: 'Endpoints rule 6',
    area: 'actions',
    level: 'MUST',
    title: 'software/action/Reset takes [] and performs a factory reset',
  },
  {
    id: 'RULE-4',
    section: 'Endpoints rule 4, Errors 2',
    area: 'actions',
    level: 'MUST',
    title: 'A POST that would create a resource is refused with 403 Forbidden and creates nothing',
  },
  {
    id: 'RULE-8',
    section: 'Endpoints rule 8',
    area: 'actions',
    level: 'OBSERVE',
    title: 'The answer to an action the spec does not show is recorded',
  },

  // --- Delete ---------------------------------------------------------------------------------
  {
    id: 'EP-11',
    section: 'Endpoints #11, rule 5',
    area: 'delete',
    level: 'MUST',
    title: 'DELETE of an instance implementing xyz.{ns}.Object.Delete removes it',
  },
  {
    id: 'RULE-5',
    section: 'Endpoints rule 5, Errors 2',
    area: 'delete',
    level: 'MUST',
    title: 'DELETE of an object without xyz.{ns}.Object.Delete is refused with 403 Forbidden and the object stays',
  },

  // --- Upload ---------------------------------------------------------------------------------
  {
    id: 'EP-12',
    section: 'Endpoints #12',
    area: 'upload',
    level: 'MUST',
    title: 'POST /upload/image with an octet-stream image answers with data as the version id string',
  },
  {
    id: 'EP-13',
    section: 'Endpoints #13',
    area: 'upload',
    level: 'MUST',
    title: 'PUT /upload/image/{remote_name} with an octet-stream image answers with data as the version id string',
  },
  {
    id: 'RULE-7',
    section: 'Endpoints rule 7',
    area: 'upload',
    level: 'MUST',
    title: 'An uploaded image is extracted and registered as a software version object under software/',
  },
  {
    id: 'ERR-2',
    section: 'Errors 2',
    area: 'upload',
    level: 'MUST',
    title: 'An upload that fails extraction answers 400 with an error description saying so',
  },
  {
    id: 'ERR-3',
    section: 'Errors 2',
    area: 'upload',
    level: 'MUST',
    title: 'An upload of a version that already exists answers 400 with an error description saying so',
  },

  // --- Events ---------------------------------------------------------------------------------
  {
    id: 'EP-14',
    section: 'Endpoints #14, Subscription 1-3',
    area: 'events',
    level: 'MUST',
    title: 'After login, wss /subscribe accepts a JSON filter message and then pushes event messages',
  },
  {
    id: 'EV-1',
    section: 'Subscription 3',
    area: 'events',
    level: 'MUST',
    title: 'The empty filter {} means no filtering: events of every path and interface arrive',
  },
  {
    id: 'EV-2',
    section: 'Event kinds: PropertiesChanged',
    area: 'events',
    level: 'MUST',
    title: 'PropertiesChanged carries event, path, interface and properties with the changed values',
  },
  {
    id: 'EV-3',
    section: 'Event kinds: InterfacesAdded',
    area: 'events',
    level: 'MUST',
    title: 'InterfacesAdded carries event, the new path, and interfaces in the ObjectManager shape',
  },
  {
    id: 'EV-4',
    section: 'Subscription 4',
    area: 'events',
    level: 'MUST',
    title: 'A paths filter admits only signals originating from the listed paths',
  },
  {
    id: 'EV-5',
    section: 'Subscription 4',
    area: 'events',
    level: 'MUST',
    title: 'An interfaces filter admits only signals involving the listed interfaces',
  },
  {
    id: 'EV-6',
    section: 'Subscription 5',
    area: 'events',
    level: 'MUST',
    title: 'With both paths and interfaces, the filters are ORed: an event matching either arrives',
  },
  {
    id: 'EV-7',
    section: 'Event kinds',
    area: 'events',
    level: 'MUST',
    title: 'Only InterfacesAdded and PropertiesChanged events are pushed',
  },
  {
    id: 'EV-8',
    section: 'Event kinds',
    area: 'events',
    level: 'MUST',
    title: 'Each change that passes the filter is pushed exactly once: none missing, none duplicated',
  },
  {
    id: 'EV-9',
    section: 'Events',
    area: 'events',
    level: 'SAFETY',
    title: 'Events arrive in the order the changes happened (per object, and requested before current host state)',
  },
  {
    id: 'EV-10',
    section: 'Events',
    area: 'events',
    level: 'SAFETY',
    title: 'Subscribers are isolated: a malformed filter or a closed subscriber disturbs neither other subscribers nor the service',
  },
  {
    id: 'EV-11',
    section: 'Events',
    area: 'events',
    level: 'OBSERVE',
    title: 'Event latency, pings, and how a malformed filter is answered are recorded',
  },

  // --- Errors ---------------------------------------------------------------------------------
  {
    id: 'ERR-1',
    section: 'Errors 1',
    area: 'errors',
    level: 'MUST',
    title: "An error response carries data as a map with a description string (its status and message are the envelope's: ENV-2, ENV-3)",
  },
  { id: 'ERR-4', section: 'Errors 3', area: 'errors', level: 'MUST', title: 'Successful requests answer 200 OK with status "ok"' },
  {
    id: 'ERR-5',
    section: 'Errors',
    area: 'errors',
    level: 'SAFETY',
    title:
      'No input (malformed JSON, wrong types, unknown paths or methods, odd encodings) yields a 5xx or a dropped connection; the service keeps answering',
  },
  {
    id: 'ERR-6',
    section: 'Errors 4',
    area: 'errors',
    level: 'OBSERVE',
    title: 'The statuses for unknown paths, wrong methods and wrong value types are recorded',
  },
  {
    id: 'RULE-9',
    section: 'Endpoints rule 9',
    area: 'errors',
    level: 'OBSERVE',
    title: 'The response bodies of login, logout, PUT, action and DELETE are recorded',
  },
  { id: 'LIM-1', section: 'Limits', area: 'errors', level: 'OBSERVE', title: 'The answer to an oversized request body is recorded' },
];

const byId = new Map(REQUIREMENTS.map((r) => [r.id, r]));

export function requirement(id: string): Requirement {
  const r = byId.get(id);
  if (!r) throw new Error(`unknown requirement id ${id}`);
  return r;
}

export function isRequirementId(id: string): boolean {
  return byId.has(id);
}

/** Requirements that a simulator fault must be able to break (mutation self-test). */
export function failableRequirements(): Requirement[] {
  return REQUIREMENTS.filter((r) => r.level !== 'OBSERVE');
}

// The requirement lists of the checks that judge many requirements at once, named here so that
// the checks (which import them) and the areas judging each requirement come from one place.

/** What the stateful checks judge on every subscriber's stream, whichever change they make. */
const WATCHED_EVENTS = ['EV-1', 'EV-2', 'EV-3', 'EV-4', 'EV-5', 'EV-6', 'EV-7', 'EV-8', 'EV-9'] as const;

/** The stateful values check (suites/stateful/stateful.suite.ts); each finding names one. */
export const VALUE_REQUIREMENTS = ['EP-3', 'EP-4', 'EP-5', 'EP-6', 'EP-7', 'EP-8', 'EP-9', ...WATCHED_EVENTS] as const;

/** The stateful versions check; each finding names one. */
export const VERSION_REQUIREMENTS = [
  'EP-3',
  'EP-5',
  'EP-6',
  'EP-7',
  'EP-8',
  'EP-11',
  'EP-12',
  'EP-13',
  'RULE-7',
  'ERR-3',
  'ACT-1',
  ...WATCHED_EVENTS,
] as const;

/** The stateful credentials check; each finding names one. */
export const CREDENTIAL_REQUIREMENTS = ['EP-2', 'AUTH-1', 'AUTH-2', 'AUTH-3'] as const;

/** The fuzz area's stability property (a read that drops its connection is ERR-5's). */
export const STABILITY_REQUIREMENTS = ['EP-3', 'EP-4', 'EP-5', 'EP-6', 'EP-7', 'ERR-5'] as const;

/** The IDs of `lists`, once each, that belong to an area other than `area`. */
function outside(area: Area, ...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())].filter((id) => requirement(id).area !== area);
}

/**
 * Requirements a suite judges besides those of its own area (test/runner/traceability.test.ts keeps
 * this true). A run without one of these areas has not seen every test of them.
 */
export const JUDGED_ELSEWHERE: Readonly<Partial<Record<Area, readonly string[]>>> = {
  actions: ['ERR-5'],
  errors: ['AUTH-4'],
  events: ['AUTH-3'],
  fuzz: outside(
    'fuzz',
    ['ENV-1', 'ENV-2', 'ENV-3', 'ENV-4', 'AUTH-1', 'AUTH-4', 'AUTH-5', 'ERR-5', 'WR-1', 'EP-8'],
    STABILITY_REQUIREMENTS,
  ),
  stateful: outside('stateful', VALUE_REQUIREMENTS, VERSION_REQUIREMENTS, CREDENTIAL_REQUIREMENTS),
  writes: ['OBJ-4', 'OBJ-5'],
};

/** Every area with a test of the requirement: its own, then those that judge it besides. */
export function areasJudging(id: string): Area[] {
  const others = AREAS.filter((a) => JUDGED_ELSEWHERE[a]?.includes(id));
  return [requirement(id).area, ...others.filter((a) => a !== requirement(id).area)];
}
