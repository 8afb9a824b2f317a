/**
 * The fault model: for every requirement of the catalogue and every operator (operators.ts), either
 * the operator applies (an implementation can break the statement that way, and simulator faults
 * with that requirement and operator must realise it) or a one-line reason why it cannot.
 *
 * The faults themselves name their requirement and operator (simulator/faults.ts); this table says
 * which pairs must have one. test/catalogue/fault-model.test.ts keeps it complete (every pair
 * decided) and consistent (every fault's pair applies; every applying pair has a fault, or is a
 * named gap below).
 */
import { REQUIREMENTS, type Requirement } from './requirements.js';
import { OPERATOR_NAMES, type Operator } from './operators.js';

export interface RequirementModel {
  /** Operators that can break the requirement: each needs a fault of that requirement and operator. */
  applies: readonly Operator[];
  /** Reasons for operators that cannot, where the operator's default reason (below) does not fit. */
  cannot?: Readonly<Partial<Record<Operator, string>>>;
}

/**
 * Why an operator cannot break a requirement that does not list it, unless the requirement gives a
 * reason of its own. Each reason names the kind of statement the operator needs, so that it reads
 * true for every requirement that falls back on it.
 */
export const DEFAULT_REASONS: Readonly<Record<Operator, string>> = {
  omit: 'the statement requires no element, member or event whose absence another operator does not already name',
  extra: 'the statement bounds no set: something more is not a violation of it',
  duplicate: 'the statement concerns no collection or stream in which a thing could appear twice',
  self: 'nothing the statement concerns can include or refer to itself',
  widen: 'the statement makes no match or comparison that could be taken too broadly',
  narrow: 'the statement makes no match, depth or length that could be cut short',
  stale: 'the statement compares no two views or moments that could lag one another',
  lossy: 'the statement carries no value whose type, precision or encoding could be lost',
  partial: 'the statement asks for a single, indivisible effect or answer',
  collateral: 'the statement causes no effect that could land on another object',
  'acknowledged-not-done': 'the statement asks for an answer, not for an effect beyond it',
  'done-without-authority': "authority is AUTH-1, AUTH-2 and AUTH-3's statement, not this one's",
  'out-of-domain': 'the statement takes no input whose allowed set could be widened',
  reorder: 'the statement concerns one answer or one effect, not a sequence',
  coalesce: 'the statement concerns no stream of changes that could be merged',
  premature: 'the statement has no precondition that something could be delivered before',
  misreport: 'the statement reports no code, word, type or value that could be reported wrongly',
  malformed: "the shape of the answer is another requirement's statement",
  refuse: 'the statement asks for a refusal or a shape, not for a request to be accepted',
  crash: "a 5xx or a dropped connection is ERR-5's statement (and the envelope's), not this one's",
  leak: "what a refusal carries is AUTH-5's statement",
};

const OBSERVED = 'an OBSERVE requirement records behaviour the spec leaves open: nothing can break it';

export const FAULT_MODEL: Readonly<Record<string, RequirementModel>> = {
  // Authentication
  'EP-1': {
    applies: ['omit', 'acknowledged-not-done', 'refuse'],
    cannot: { 'done-without-authority': 'a login needs no prior authority (a wrong password is AUTH-4)' },
  },
  'EP-2': { applies: ['acknowledged-not-done', 'partial', 'stale', 'collateral', 'refuse', 'done-without-authority'] },
  'AUTH-1': { applies: ['done-without-authority', 'widen', 'self'] },
  'AUTH-2': { applies: ['done-without-authority', 'partial'] },
  'AUTH-3': { applies: ['done-without-authority', 'widen'] },
  'AUTH-4': { applies: ['done-without-authority', 'widen'] },
  'AUTH-5': { applies: ['leak'] },
  'TLS-1': {
    applies: ['omit'],
    cannot: {
      partial:
        'the event channel is reached at the service address itself (wss://{host}/subscribe): its listener speaks TLS for both, or for neither (omit)',
    },
  },
  // Envelope
  'ENV-1': { applies: ['omit', 'partial'] },
  'ENV-2': { applies: ['misreport', 'partial'] },
  'ENV-3': { applies: ['misreport'] },
  'ENV-4': { applies: ['misreport', 'malformed'] },
  // Objects
  'EP-3': { applies: ['malformed', 'omit', 'lossy'] },
  'EP-4': { applies: ['misreport', 'malformed', 'lossy', 'stale'] },
  'OBJ-1': { applies: ['extra'] },
  'OBJ-2': { applies: ['omit'] },
  'OBJ-3': { applies: ['lossy', 'omit'] },
  'OBJ-4': { applies: ['lossy', 'misreport'] },
  'OBJ-5': { applies: ['misreport', 'out-of-domain'] },
  'OBJ-6': { applies: ['omit'] },
  'OBJ-7': { applies: ['malformed'] },
  'OBJ-8': { applies: ['widen'] },
  // Listings
  'EP-5': { applies: ['malformed', 'extra', 'duplicate', 'omit', 'self', 'narrow'] },
  'EP-6': { applies: ['narrow', 'self', 'stale', 'duplicate', 'extra', 'omit'] },
  'EP-7': { applies: ['stale', 'extra', 'omit', 'misreport', 'self'] },
  'RULE-1': { applies: ['omit'] },
  // Writes
  'EP-8': { applies: ['acknowledged-not-done', 'collateral', 'lossy', 'stale'] },
  'EP-9': { applies: ['acknowledged-not-done', 'collateral', 'partial'] },
  'RULE-2': { applies: ['refuse'] },
  'RULE-3': { applies: ['partial', 'extra'] },
  'WR-1': { applies: ['out-of-domain', 'crash'] },
  'STATE-1': { applies: ['refuse', 'acknowledged-not-done'] },
  // Actions
  'EP-10': { applies: ['acknowledged-not-done', 'widen', 'collateral'] },
  'ACT-1': {
    applies: ['acknowledged-not-done', 'collateral'],
    cannot: {
      partial:
        'its one effect is a version registered (acknowledged-not-done when missing); the spec shows nothing of a version object by which half a registration could be told',
    },
  },
  'ACT-2': { applies: ['crash', 'acknowledged-not-done', 'partial'] },
  'RULE-4': { applies: ['misreport', 'extra'] },
  // Delete
  'EP-11': { applies: ['acknowledged-not-done', 'collateral', 'partial'] },
  'RULE-5': { applies: ['widen', 'misreport'] },
  // Upload
  'EP-12': { applies: ['malformed', 'omit', 'misreport'] },
  'EP-13': { applies: ['refuse', 'misreport'] },
  'RULE-7': {
    applies: ['acknowledged-not-done', 'stale', 'collateral'],
    cannot: {
      partial: 'the spec shows no attribute of a version object: beyond an object under software/, what a registration holds is not stated',
    },
  },
  'ERR-2': { applies: ['out-of-domain', 'misreport'] },
  'ERR-3': { applies: ['duplicate', 'crash'] },
  // Events
  'EP-14': { applies: ['omit'] },
  'EV-1': { applies: ['narrow'] },
  'EV-2': { applies: ['misreport', 'extra', 'lossy'] },
  'EV-3': { applies: ['omit', 'partial', 'misreport'] },
  'EV-4': { applies: ['widen', 'premature', 'narrow'] },
  'EV-5': { applies: ['widen', 'narrow'] },
  'EV-6': { applies: ['narrow'] },
  'EV-7': { applies: ['extra'] },
  'EV-8': { applies: ['omit', 'duplicate', 'coalesce'] },
  'EV-9': { applies: ['reorder'] },
  'EV-10': { applies: ['collateral'] },
  // Errors
  'ERR-1': { applies: ['omit', 'malformed'] },
  'ERR-4': { applies: ['misreport'] },
  'ERR-5': { applies: ['crash'] },
};

/**
 * Pairs the model says apply and no simulator fault realises yet: named here so that the mutation
 * report shows them, and so that the completeness test fails on any other uncovered pair.
 */
export const KNOWN_GAPS: ReadonlyArray<readonly [string, Operator, string]> = [
  [
    'EP-8',
    'stale',
    'a written value that does not read back only while requests overlap: the load-only fault load-stale-read, judged by load --verify',
  ],
];

export type Decision = { applies: true } | { applies: false; why: string };

/** The model's decision for one pair; OBSERVE requirements cannot be broken at all. */
export function decide(req: Requirement, op: Operator): Decision {
  if (req.level === 'OBSERVE') return { applies: false, why: OBSERVED };
  const model = FAULT_MODEL[req.id];
  if (!model) throw new Error(`the fault model has no entry for ${req.id}`);
  if (model.applies.includes(op)) return { applies: true };
  return { applies: false, why: model.cannot?.[op] ?? DEFAULT_REASONS[op] };
}

/** Every pair of the catalogue with its decision, requirement by requirement. */
export function faultModelPairs(): Array<{ id: string; operator: Operator; decision: Decision }> {
  return REQUIREMENTS.flatMap((req) => OPERATOR_NAMES.map((operator) => ({ id: req.id, operator, decision: decide(req, operator) })));
}
