/**
 * The fault operators: the ways an implementer who got a statement slightly wrong breaks it. Every
 * simulator fault names the one it applies; the fault model (fault-model.ts) decides for every
 * requirement which operators can break it and which cannot, and why.
 */
export const OPERATORS = {
  omit: 'one element, member, object or event that must be there is missing',
  extra: 'an element, member, object or event that must not be there is present',
  duplicate: 'an element or event is there twice',
  self: 'a thing includes itself (a listing names the path asked, a session adopts its own id)',
  widen: 'a match is taken too broadly: by prefix, by subtree, by case, by a truncated comparison',
  narrow: 'a match, depth, page or length is cut short',
  stale: 'a view lags a change that another view already shows',
  lossy: 'precision, type or encoding is lost on one endpoint or channel',
  partial: 'half an effect: some of what one command must do is done',
  collateral: 'an effect lands on an object other than the target: a sibling, a neighbour by id, a parent',
  'acknowledged-not-done': 'ok is answered and nothing happens',
  'done-without-authority': 'the effect happens without credentials, with ended or with tampered ones',
  'out-of-domain': 'a well-typed value outside the allowed set is accepted',
  reorder: 'things happen or arrive in another order than they were caused',
  coalesce: 'several changes are merged into one',
  premature: 'something is delivered before its precondition holds (events before the filter arrives)',
  misreport: 'a code, reason, status word, content type or value is reported wrongly',
  malformed: 'an answer has the wrong shape or JSON type',
  refuse: 'a conformant request is refused',
  crash: 'a request yields a 5xx or a dropped connection',
  leak: 'a refusal carries data of the target',
} as const;

export type Operator = keyof typeof OPERATORS;

export const OPERATOR_NAMES = Object.keys(OPERATORS) as Operator[];

export function isOperator(name: string): name is Operator {
  return Object.hasOwn(OPERATORS, name);
}
