/**
 * Deliberate faults: each one breaks a single statement of the spec, named by its requirement id
 * in catalogue/requirements.ts. The conformance suites must fail that requirement when the
 * simulator runs with the fault (mutation self-test). Hooks are plain `faults.has(name)` checks at
 * the point of behaviour.
 */
import { LATENCY_FAULTS, LATENCY_FAULT_NAMES, LatencyFaults } from './latency-faults.js';
import { HARNESS_FAULTS, HARNESS_FAULT_NAMES } from './harness-faults.js';
import { LOAD_FAULTS, LOAD_FAULT_NAMES, LoadFaults } from './load-faults.js';
import type { FaultInfo } from './fault-info.js';
import { AUTH_FAULTS } from './faults-auth.js';
import { LISTING_FAULTS } from './faults-listings.js';
import { EFFECT_FAULTS } from './faults-effects.js';
import { EVENT_FAULTS } from './faults-events.js';
import { DOMAIN_FAULTS } from './faults-domains.js';
import { FIDELITY_FAULTS } from './faults-fidelity.js';
import { parseSiteFault, type AnswerFaultInfo, type SiteFault } from './answer-faults.js';
import type { SiteOutcome, SiteRoute } from '../client/answer-site.js';
import { parseEventSiteFault, type EventSiteFault, type EventSiteFaultInfo } from './event-site-faults.js';
import type { EventCause, FilterShape } from '../client/event-site.js';

export type { FaultInfo } from './fault-info.js';

/** Why a fault that answers 500 where another statement fixes the answer FAILs ERR-5 too. */
const SERVER_ERROR =
  'a 500 is a server error, and the run-wide answers oracle judges every answer for one (seen where the oracle judges ERR-5: npm run mutation)';

const CORE_FAULTS = [
  // Envelope
  { name: 'missing-message-member', operator: 'omit', requirement: 'ENV-1', description: 'responses omit the message member' },
  { name: 'message-wrong-code', operator: 'misreport', requirement: 'ENV-2', description: 'error responses say "200 OK" in message' },
  { name: 'status-ok-on-error', operator: 'misreport', requirement: 'ENV-3', description: 'error responses carry status "ok"' },
  { name: 'text-plain-content-type', operator: 'misreport', requirement: 'ENV-4', description: 'responses are labelled text/plain' },
  { name: 'missing-data-member', operator: 'omit', requirement: 'ENV-1', description: 'successful responses omit the data member' },
  {
    name: 'message-without-reason',
    operator: 'partial',
    requirement: 'ENV-2',
    description: 'message is the bare code ("200"), without the reason',
  },
  {
    name: 'status-error-on-success',
    operator: 'misreport',
    requirement: 'ENV-3',
    description: 'successful GETs of objects carry status "error"',
  },
  // Auth
  { name: 'login-no-cookie', operator: 'omit', requirement: 'EP-1', description: 'login answers 200 but sets no cookie' },
  {
    name: 'logout-keeps-session',
    operator: 'acknowledged-not-done',
    requirement: 'EP-2',
    description: 'logout answers 200 but the session stays valid',
  },
  {
    name: 'auth-bypass-enumerate',
    operator: 'done-without-authority',
    requirement: 'AUTH-1',
    description: '{path}/enumerate answers without a session',
  },
  {
    name: 'auth-bypass-attr',
    operator: 'done-without-authority',
    requirement: 'AUTH-1',
    description: 'GET {path}/attr/{name} answers without a session',
  },
  {
    name: 'auth-bypass-upload',
    operator: 'done-without-authority',
    requirement: 'AUTH-2',
    description: 'image uploads are accepted without a session',
  },
  {
    name: 'subscribe-without-login',
    operator: 'done-without-authority',
    requirement: 'AUTH-3',
    description: 'the WebSocket handshake succeeds without a session and events flow',
  },
  {
    name: 'login-any-password',
    operator: 'done-without-authority',
    requirement: 'AUTH-4',
    description: 'login accepts any password for a known user',
  },
  {
    name: 'refusal-leaks-data',
    operator: 'leak',
    requirement: 'AUTH-5',
    description: 'a refused request lists the top-level paths in its error data',
  },
  { name: 'http-plain', operator: 'omit', requirement: 'TLS-1', description: 'the service is plain HTTP/ws instead of HTTPS/wss' },
  // Objects
  {
    name: 'object-not-flattened',
    operator: 'malformed',
    requirement: 'EP-3',
    description: 'GET {path} maps interface names to property maps instead of attribute names to values',
  },
  {
    name: 'attr-wrong-value',
    operator: 'misreport',
    requirement: 'EP-4',
    description: 'GET {path}/attr/{name} answers a value different from the object map',
  },
  {
    name: 'attr-wrapped-in-map',
    operator: 'malformed',
    requirement: 'EP-4',
    description: 'GET {path}/attr/{name} answers {name: value} instead of the bare value',
  },
  {
    name: 'object-outside-namespace',
    operator: 'extra',
    requirement: 'OBJ-1',
    description: 'an object lives at /org/{ns}/... and is listed from /',
  },
  { name: 'missing-top-level-led', operator: 'omit', requirement: 'OBJ-2', description: 'the top-level child led is missing' },
  {
    name: 'present-as-string',
    operator: 'lossy',
    requirement: 'OBJ-3',
    description: 'inventory/system Present is shown as the string "1"',
  },
  { name: 'elapsed-as-string', operator: 'lossy', requirement: 'OBJ-4', description: 'time/bmc Elapsed is shown as a string' },
  {
    name: 'host-enum-wrong-namespace',
    operator: 'misreport',
    requirement: 'OBJ-5',
    description: 'CurrentHostState values use xyz.other_vendor instead of xyz.{ns}',
  },
  { name: 'no-dhcp-object', operator: 'omit', requirement: 'OBJ-6', description: 'network/config/dhcp does not exist' },
  {
    name: 'entry-id-not-integer',
    operator: 'malformed',
    requirement: 'OBJ-7',
    description: 'logging entries are named entry/e<N> instead of an integer id',
  },
  { name: 'attr-case-insensitive', operator: 'widen', requirement: 'OBJ-8', description: 'attribute names match regardless of case' },
  // Listings
  {
    name: 'listing-relative-paths',
    operator: 'malformed',
    requirement: 'EP-5',
    description: '{path}/ lists child names instead of absolute paths',
  },
  {
    name: 'listing-includes-grandchildren',
    operator: 'extra',
    requirement: 'EP-5',
    description: 'GET {path}/ also lists the children of the children',
  },
  { name: 'list-not-recursive', operator: 'narrow', requirement: 'EP-6', description: '{path}/list lists only the direct children' },
  {
    name: 'list-includes-self',
    operator: 'self',
    requirement: 'EP-6',
    description: 'GET {path}/list names {path} itself among its descendants',
  },
  {
    name: 'enumerate-stale-value',
    operator: 'stale',
    requirement: 'EP-7',
    description: 'enumerate keeps serving the attribute maps it first computed',
  },
  { name: 'root-lists-nothing', operator: 'omit', requirement: 'RULE-1', description: 'GET / answers an empty listing' },
  // Writes
  {
    name: 'put-attr-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'EP-8',
    description: 'PUT {path}/attr/{name} answers 200 but changes nothing',
    knockOn: { 'STATE-1': 'RequestedHostTransition is set through the attribute PUT the fault ignores' },
  },
  {
    name: 'put-object-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'EP-9',
    description: 'PUT {path} answers 200 but changes nothing',
  },
  {
    name: 'put-rejects-get-body',
    operator: 'refuse',
    requirement: 'RULE-2',
    description: 'PUT {path} refuses booleans given as 0/1, as GET shows them',
    knockOn: { 'EP-9': 'the complete map of EP-9 is the GET body with one value changed: its 0/1 booleans are refused too' },
  },
  {
    name: 'put-partial-accepted',
    operator: 'partial',
    requirement: 'RULE-3',
    description: 'PUT {path} with a partial map is accepted and applied',
  },
  { name: 'patch-accepted', operator: 'extra', requirement: 'RULE-3', description: 'PATCH {path} applies a partial update' },
  {
    name: 'wrong-type-stored',
    operator: 'out-of-domain',
    requirement: 'WR-1',
    description: 'PUT {path}/attr/{name} stores a wrongly typed value',
  },
  { name: 'wrong-type-500', operator: 'crash', requirement: 'WR-1', description: 'a PUT of a wrongly typed value answers 500' },
  {
    name: 'requested-transition-readonly',
    operator: 'refuse',
    requirement: 'STATE-1',
    description: 'RequestedHostTransition refuses writes with 403',
  },
  // Actions
  {
    name: 'action-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'EP-10',
    description: 'actions answer 200 without calling the method',
    knockOn: {
      'ACT-1': 'DownloadViaTFTP is one of the actions the fault does not call: nothing is downloaded',
      'ACT-2': 'Reset is one of the actions the fault does not call: nothing is reset',
    },
  },
  {
    name: 'tftp-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'ACT-1',
    description: 'DownloadViaTFTP answers 200 without downloading anything',
  },
  {
    name: 'reset-500',
    operator: 'crash',
    requirement: 'ACT-2',
    description: 'Reset answers 500 and resets nothing',
    knockOn: { 'ERR-5': SERVER_ERROR },
  },
  { name: 'post-create-405', operator: 'misreport', requirement: 'RULE-4', description: 'a creating POST answers 405 instead of 403' },
  { name: 'post-create-200', operator: 'extra', requirement: 'RULE-4', description: 'a POST that would create answers 200 ok' },
  {
    name: 'unknown-action-200',
    operator: 'widen',
    requirement: 'EP-10',
    verdict: 'WARN',
    description: 'a POST to an action the object does not have answers 200 ok',
  },
  // Delete
  {
    name: 'delete-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'EP-11',
    description: 'DELETE of a deletable instance answers 200 but it stays',
  },
  {
    name: 'delete-nondeletable-succeeds',
    operator: 'widen',
    requirement: 'RULE-5',
    description: 'DELETE of an object without Object.Delete removes it with 200',
  },
  {
    name: 'delete-nondeletable-404',
    operator: 'misreport',
    requirement: 'RULE-5',
    description: 'DELETE of an object without the Delete interface answers 404',
  },
  // Upload
  {
    name: 'upload-id-as-number',
    operator: 'malformed',
    requirement: 'EP-12',
    description: 'POST /upload/image answers the version id as a number',
  },
  { name: 'upload-id-empty', operator: 'omit', requirement: 'EP-12', description: 'POST /upload/image answers an empty version id' },
  { name: 'upload-put-405', operator: 'refuse', requirement: 'EP-13', description: 'PUT /upload/image/{remote_name} answers 405' },
  {
    name: 'upload-not-registered',
    operator: 'acknowledged-not-done',
    requirement: 'RULE-7',
    description: 'an upload answers with an id but registers no software object',
    knockOn: { 'ACT-1': 'DownloadViaTFTP registers its image the way an upload does: no version appears either' },
  },
  {
    name: 'bad-image-accepted',
    operator: 'out-of-domain',
    requirement: 'ERR-2',
    description: 'an upload that fails extraction answers 200 with an id',
  },
  { name: 'duplicate-accepted', operator: 'duplicate', requirement: 'ERR-3', description: 'an upload of an existing version answers 200' },
  {
    name: 'preexisting-duplicate-accepted',
    operator: 'duplicate',
    requirement: 'ERR-3',
    description:
      'an upload of a version the BMC held before any upload (the running one) answers 200; only uploaded versions are checked for duplicates',
  },
  {
    name: 'duplicate-500',
    operator: 'crash',
    requirement: 'ERR-3',
    description: 'an upload of an existing version answers 500',
    knockOn: { 'ERR-5': SERVER_ERROR },
  },
  // Events
  { name: 'no-events', operator: 'omit', requirement: 'EP-14', description: 'subscriptions never receive any event' },
  { name: 'empty-filter-drops', operator: 'narrow', requirement: 'EV-1', description: 'the empty filter {} delivers nothing' },
  {
    name: 'wrong-interface-name',
    operator: 'misreport',
    requirement: 'EV-2',
    description: 'PropertiesChanged names org.freedesktop.DBus.Properties as its interface',
  },
  {
    name: 'no-interfaces-added',
    operator: 'omit',
    requirement: 'EV-3',
    description: 'no InterfacesAdded is pushed when an object appears',
  },
  {
    name: 'filter-paths-ignored',
    operator: 'widen',
    requirement: 'EV-4',
    description: 'the paths filter key is ignored',
    knockOn: { 'EV-6': 'an ignored paths key cannot be ORed with interfaces: an event matching only the path never arrives' },
  },
  {
    name: 'filter-interfaces-ignored',
    operator: 'widen',
    requirement: 'EV-5',
    description: 'the interfaces filter key is ignored',
    knockOn: { 'EV-6': 'an ignored interfaces key cannot be ORed with paths: an event matching only the interface never arrives' },
  },
  { name: 'filter-and', operator: 'narrow', requirement: 'EV-6', description: 'paths and interfaces are ANDed instead of ORed' },
  {
    name: 'extra-event-kind',
    operator: 'extra',
    requirement: 'EV-7',
    description: 'a "Subscribed" message acknowledges the filter and deletes push InterfacesRemoved',
  },
  { name: 'events-dropped', operator: 'omit', requirement: 'EV-8', description: 'every third event to a subscriber is dropped' },
  {
    name: 'events-duplicated',
    operator: 'duplicate',
    requirement: 'EV-8',
    description: 'every event is pushed twice',
    knockOn: {
      'EV-2':
        'a copy that arrives after the next write of the property was sent reads as the old value reported anew (an event of a change that never happened): by value and time the two cannot be told apart',
    },
  },
  {
    name: 'events-reordered',
    operator: 'reorder',
    requirement: 'EV-9',
    description: 'consecutive events to a subscriber are swapped in pairs',
  },
  {
    name: 'events-burst-reordered',
    operator: 'reorder',
    requirement: 'EV-9',
    description: 'events emitted within 20 ms of each other reach a subscriber swapped',
  },
  {
    name: 'host-current-before-requested',
    operator: 'reorder',
    requirement: 'EV-9',
    description: 'CurrentHostState changes (and is signalled) before the RequestedHostTransition change',
  },
  {
    name: 'bad-filter-kills-all',
    operator: 'collateral',
    requirement: 'EV-10',
    description: 'a malformed filter closes every subscriber, not just its own',
  },
  {
    name: 'close-mutes-path',
    operator: 'collateral',
    requirement: 'EV-10',
    description: 'closing a subscriber stops delivery to every other subscriber that lists one of its paths',
    knockOn: {
      'EV-8':
        'the subscriptions it mutes stay open and live, and lose the events of later changes their filters admit: the run-wide events oracle finds each missing',
    },
  },
  // Errors
  { name: 'error-without-description', operator: 'omit', requirement: 'ERR-1', description: 'error data has no description string' },
  { name: 'success-201', operator: 'misreport', requirement: 'ERR-4', description: 'successful writes (PUT) answer 201 Created' },
  {
    name: 'error-data-string',
    operator: 'malformed',
    requirement: 'ERR-1',
    description: 'error data is the description string itself, not a map',
  },
  {
    name: 'crash-on-long-segment',
    operator: 'crash',
    requirement: 'ERR-5',
    description: 'a path segment longer than 1,000 characters answers 500',
  },
  { name: 'crash-on-unicode-path', operator: 'crash', requirement: 'ERR-5', description: 'a path with a non-ASCII character answers 500' },
  { name: 'malformed-json-500', operator: 'crash', requirement: 'ERR-5', description: 'a malformed JSON body answers 500' },
  // Stateful: one view or channel disagrees with the others, or a credential is checked in part
  {
    name: 'object-put-silent',
    operator: 'omit',
    requirement: 'EV-8',
    description: 'a PUT of a whole object changes its values but pushes no PropertiesChanged',
    stateful: true,
  },
  {
    name: 'delete-lingers-in-list',
    operator: 'stale',
    requirement: 'EP-6',
    description: 'a deleted instance stays named by {ancestor}/list (GET, the listing and enumerate forget it)',
    stateful: true,
  },
  {
    name: 'upload-named-id-of-name',
    operator: 'misreport',
    requirement: 'EP-13',
    description: 'PUT /upload/image/{remote_name} answers an id made from the file name, not the id of the version that appeared',
    stateful: true,
  },
  {
    name: 'reupload-refused',
    operator: 'stale',
    requirement: 'RULE-7',
    description: 'an upload of a version that was deleted answers 400 "already exists" and registers nothing',
    knockOn: {
      'ACT-1':
        'the run downloads its TFTP image more than once and deletes its version in between: the fault refuses the second download as it refuses a re-upload',
    },
    stateful: true,
  },
  {
    name: 'interfaces-filter-skips-added',
    operator: 'narrow',
    requirement: 'EV-5',
    description: 'an interfaces filter admits PropertiesChanged but never InterfacesAdded',
    stateful: true,
  },
  {
    name: 'session-prefix-match',
    operator: 'widen',
    requirement: 'AUTH-1',
    description: 'a session cookie is accepted when its first half names a live session (truncated, extended or altered)',
    knockOn: {
      'AUTH-2': 'uploads are authenticated by the same comparison: an altered cookie uploads too',
      'AUTH-3': 'the WebSocket handshake compares session cookies the same way: an altered cookie subscribes too',
    },
    stateful: true,
  },
  {
    name: 'subscribe-session-prefix-match',
    operator: 'widen',
    requirement: 'AUTH-3',
    description: 'the WebSocket handshake accepts a session cookie whose first half names a live session',
    stateful: true,
  },
  {
    name: 'session-fixation',
    operator: 'self',
    requirement: 'AUTH-1',
    description: 'a login adopts the session id the client sent in its Cookie header',
    stateful: true,
  },
  {
    name: 'delete-lingers-in-root-enumerate',
    operator: 'stale',
    requirement: 'EP-7',
    description: 'a deleted instance stays mapped by the enumerate of the namespace root (every other view forgets it)',
    stateful: true,
  },
  {
    name: 'session-id-reused',
    operator: 'stale',
    requirement: 'EP-2',
    description: 'a login is issued the id of the session that ended last: a logged-out cookie works again',
    stateful: true,
  },
  {
    name: 'logout-ends-newest-session',
    operator: 'collateral',
    requirement: 'EP-2',
    description: "logout ends the most recent session instead of the caller's",
    stateful: true,
  },
  // Gaps of the fault model (catalogue/fault-model.ts)
  {
    name: 'login-spec-body-refused',
    operator: 'refuse',
    requirement: 'EP-1',
    description: 'login refuses {"data": [user, password]} with 400 and takes only {"username", "password"}',
  },
  {
    name: 'second-login-dead',
    operator: 'acknowledged-not-done',
    requirement: 'EP-1',
    description: 'while the user has a session, a further login answers 200 with a cookie that no session stands behind',
  },
  {
    name: 'logout-refuses-spec-body',
    operator: 'refuse',
    requirement: 'EP-2',
    description: 'logout refuses {"data": []} with 400 and the session stays',
  },
  { name: 'system-lacks-serial', operator: 'omit', requirement: 'OBJ-3', description: 'inventory/system has no SerialNumber' },
  {
    name: 'time-enum-wrong-namespace',
    operator: 'misreport',
    requirement: 'OBJ-4',
    description: 'time/owner TimeOwner is an enumeration of xyz.other_vendor instead of xyz.{ns}',
  },
  {
    name: 'attr-uint64-rounded',
    operator: 'lossy',
    requirement: 'EP-4',
    description: 'GET {path}/attr/{name} of an integer beyond 2^53 answers it rounded through a double',
  },
  {
    name: 'attr-stale-after-write',
    operator: 'stale',
    requirement: 'EP-4',
    description: 'GET {path}/attr/{name} keeps answering the value it answered first, after writes change it',
    stateful: true,
    knockOn: {
      'EV-2':
        "the run knows a property's value from its reads too: after a stale answer, a write of the value it showed changes the property the run thinks it leaves as it was, and that change's event reads as one of a change that never happened",
    },
  },
  {
    name: 'transition-write-ignored',
    operator: 'acknowledged-not-done',
    requirement: 'STATE-1',
    description: 'a PUT of RequestedHostTransition answers 200 and the requested value stays',
  },
  {
    name: 'bad-image-vague-description',
    operator: 'misreport',
    requirement: 'ERR-2',
    description: 'an upload that fails extraction answers 400 with a description that says neither extraction nor an existing version',
  },
  {
    name: 'upload-id-not-version',
    operator: 'misreport',
    requirement: 'EP-12',
    description: 'POST /upload/image answers a hash string that is not the id of the version that appeared',
    stateful: true,
  },
  {
    name: 'logout-answers-empty',
    operator: 'malformed',
    requirement: 'ENV-4',
    description: 'logout answers 200 with an empty body labelled application/json',
  },
  {
    name: 'logout-answers-data-only',
    operator: 'partial',
    requirement: 'ENV-1',
    description: 'logout answers {"data": null}: one kind of answer carries data without message and status',
  },
  {
    name: 'listing-includes-self',
    operator: 'self',
    requirement: 'EP-5',
    description: 'GET {path}/ names {path} itself before its children',
  },
  {
    name: 'list-omits-deepest',
    operator: 'omit',
    requirement: 'EP-6',
    description: 'GET {path}/list leaves out its deepest descendant',
  },
  {
    name: 'enumerate-includes-self',
    operator: 'self',
    requirement: 'EP-7',
    description: 'GET {path}/enumerate of an object maps the object itself besides its descendants',
  },
  {
    name: 'enumerate-short-enum-values',
    operator: 'misreport',
    requirement: 'EP-7',
    description: 'GET {path}/enumerate renders enumerated values as their member name alone ("Off"), GET as the whole name',
  },
  {
    name: 'delete-drops-interface-only',
    operator: 'partial',
    requirement: 'EP-11',
    description: 'DELETE of a deletable instance answers 200 and takes only its Delete interface away: the object stays with the rest',
  },
  {
    name: 'interfaces-added-manager-path',
    operator: 'misreport',
    requirement: 'EV-3',
    description: 'InterfacesAdded names the ObjectManager that emits it as its path, not the new object',
  },
  {
    name: 'interfaces-added-hides-one',
    operator: 'partial',
    requirement: 'EV-3',
    description: 'InterfacesAdded of a new object leaves out its last interface with properties, which no later signal announces',
    stateful: true,
  },
  {
    name: 'properties-changed-stringified',
    operator: 'lossy',
    requirement: 'EV-2',
    description: 'PropertiesChanged carries every value that is not a string as its text ("600" for 600)',
  },
  // Authentication tried for real: a write refused without authority must be one accepted with it
  {
    name: 'auth-bypass-put-attr',
    operator: 'done-without-authority',
    requirement: 'AUTH-1',
    description: 'PUT {path}/attr/{name} without a session is accepted and done',
  },
  {
    name: 'auth-bypass-put-object',
    operator: 'done-without-authority',
    requirement: 'AUTH-1',
    description: 'PUT {path} of a whole object without a session is accepted and done',
  },
  {
    name: 'tampered-cookie-writes',
    operator: 'done-without-authority',
    requirement: 'AUTH-1',
    description: 'a PUT is accepted with any session cookie of the right shape, live or not (reads check it)',
  },
  {
    name: 'logout-ends-reads-only',
    operator: 'partial',
    requirement: 'EP-2',
    description: 'logout ends the session for reads; its cookie is still taken for writes (PUT)',
  },
  {
    name: 'login-password-prefix',
    operator: 'widen',
    requirement: 'AUTH-4',
    description: 'login accepts the right password followed by anything (compared over its own length)',
  },
  {
    name: 'listing-duplicates-last',
    operator: 'duplicate',
    requirement: 'EP-5',
    description: 'GET {path}/ names its last child twice',
  },
  {
    name: 'list-duplicates-first',
    operator: 'duplicate',
    requirement: 'EP-6',
    description: 'GET {path}/list names its first descendant twice',
  },
  {
    name: 'list-names-missing',
    operator: 'extra',
    requirement: 'EP-6',
    description: 'GET {path}/list also names a descendant that does not exist',
  },
  {
    name: 'enumerate-names-missing',
    operator: 'extra',
    requirement: 'EP-7',
    description: 'GET {path}/enumerate also maps a descendant that does not exist',
  },
  {
    name: 'enumerate-omits-deepest',
    operator: 'omit',
    requirement: 'EP-7',
    description: 'GET {path}/enumerate leaves out its deepest object with attributes',
  },
  // Field behaviour the spec leaves open: no requirement may FAIL under it.
  {
    name: 'logout-keeps-socket',
    operator: 'partial',
    requirement: 'EP-2',
    verdict: 'PASS',
    description: 'logout ends the session for HTTP, but its event sockets stay open and keep receiving (as on both field servers)',
    stateful: true,
  },
  {
    name: 'lenient-utf8',
    operator: 'widen',
    requirement: 'ERR-6',
    verdict: 'PASS',
    description: 'a JSON body that is not valid UTF-8 is decoded with U+FFFD in place of bad bytes and taken',
  },
] as const satisfies readonly FaultInfo[];

export const FAULTS: readonly FaultInfo[] = [
  ...CORE_FAULTS,
  ...AUTH_FAULTS,
  ...LISTING_FAULTS,
  ...EFFECT_FAULTS,
  ...EVENT_FAULTS,
  ...DOMAIN_FAULTS,
  ...FIDELITY_FAULTS,
];

/**
 * Every fault name the simulator knows, as a type: a hook `faults.has('…')` that names no fault of
 * the catalogue does not compile.
 */
export type FaultName =
  | (typeof CORE_FAULTS)[number]['name']
  | (typeof AUTH_FAULTS)[number]['name']
  | (typeof LISTING_FAULTS)[number]['name']
  | (typeof EFFECT_FAULTS)[number]['name']
  | (typeof EVENT_FAULTS)[number]['name']
  | (typeof DOMAIN_FAULTS)[number]['name']
  | (typeof FIDELITY_FAULTS)[number]['name']
  | (typeof LATENCY_FAULTS)[number]['name']
  | (typeof HARNESS_FAULTS)[number]['name']
  | (typeof LOAD_FAULTS)[number]['name'];

const NAMES = new Set([...FAULTS.map((f) => f.name), ...LATENCY_FAULT_NAMES, ...HARNESS_FAULT_NAMES, ...LOAD_FAULT_NAMES]);

/**
 * A fault the simulator knows: one of the catalogue, a slow-* latency fault, a harness fault, a
 * load-only fault, an answer fault at one site (`NAME@ROUTE:OUTCOME`, answer-faults.ts) or an event
 * fault at one site (`NAME@CAUSE:SHAPE`, event-site-faults.ts).
 */
export function isFaultName(name: string): boolean {
  return NAMES.has(name) || parseSiteFault(name) !== undefined || parseEventSiteFault(name) !== undefined;
}

/** The set of faults a simulator runs with; unknown names are refused up front. */
export class FaultSet {
  private readonly active: ReadonlySet<string>;
  /** The slow-* faults (latency-faults.ts): awaited before each request is handled. */
  readonly latency: LatencyFaults;
  /** The load-* faults (load-faults.ts): they show only while requests overlap. */
  readonly load: LoadFaults;
  /** Answer faults at one site each (answer-faults.ts). */
  readonly sites: readonly SiteFault[];
  /** Event faults at one site each (event-site-faults.ts). */
  readonly eventSites: readonly EventSiteFault[];

  constructor(names: readonly string[] = []) {
    const unknown = names.filter((n) => !isFaultName(n));
    if (unknown.length > 0) {
      throw new Error(
        `unknown fault(s): ${unknown.join(', ')}; known faults: ${[...FAULTS, ...LATENCY_FAULTS, ...HARNESS_FAULTS, ...LOAD_FAULTS].map((f) => f.name).join(', ')}, and faults at a site, NAME@ROUTE:OUTCOME for answers, NAME@CAUSE:SHAPE for events (simulate --list-faults --sites)`,
      );
    }
    this.active = new Set(names);
    this.sites = names.flatMap((n) => parseSiteFault(n) ?? []);
    this.eventSites = names.flatMap((n) => parseEventSiteFault(n) ?? []);
    this.latency = new LatencyFaults(names);
    this.load = new LoadFaults(names);
  }

  has(name: FaultName): boolean {
    return this.active.has(name);
  }

  /** The answer faults active at one site. */
  atSite(route: SiteRoute, outcome: SiteOutcome): AnswerFaultInfo[] {
    return this.sites.filter((f) => f.site.route === route && f.site.outcome === outcome).map((f) => f.fault);
  }

  /** The event faults active at one site. */
  atEventSite(cause: EventCause, shape: FilterShape): EventSiteFaultInfo[] {
    return this.eventSites.filter((f) => f.site.cause === cause && f.site.shape === shape).map((f) => f.fault);
  }

  get names(): string[] {
    return [...this.active];
  }
}
