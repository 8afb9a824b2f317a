/**
 * The coverage plan a run ran: what the target's tree and profile decided the run covers, never the
 * seed. Each part is recorded where it is made, as an observation (EP-4's read plan, the login,
 * path and write boundaries of the fuzz area, the event filter shapes of the events area); this
 * module gathers them into one record with one digest, so that two runs with one digest covered the
 * same, and says how much of each part ran.
 */
import { createHash } from 'node:crypto';
import type { Observation } from './results-types.js';

/** The observation that records EP-4's read plan (its size and digest): two runs with one digest read the same. */
export const READ_PLAN_OBSERVATION = 'read plan (EP-4)';

/** The observations that record the parts of the plan, by part. */
export const PLAN_OBSERVATIONS = {
  reads: READ_PLAN_OBSERVATION,
  login: 'plan: login boundaries',
  paths: 'plan: path boundaries',
  writes: 'plan: write boundaries',
  filters: 'plan: event filters',
} as const;
export type PlanPart = keyof typeof PLAN_OBSERVATIONS;

/** sha256 of lines, first 16 hex digits. */
export function digestOf(lines: readonly string[]): string {
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
}

/** One part: how many cases it plans, how many ran (the time budget may cut), and its digest. */
export interface PlanPartRecord {
  cases: number;
  ran: number;
  digest: string;
  /** What the cases are, in a few words (reads: objects planned × routes). */
  detail?: string;
  /** The event filters: the shapes' names. */
  names?: string[];
}

export interface CoveragePlan {
  /** One digest of the parts' digests: two runs with one digest covered the same. */
  digest: string;
  parts: Partial<Record<PlanPart, PlanPartRecord>>;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function partOf(part: PlanPart, values: ReadonlyArray<Record<string, unknown>>): PlanPartRecord | undefined {
  const v = values[0];
  if (v === undefined || typeof v.digest !== 'string') return undefined;
  if (part === 'reads') {
    const objects = num(v.objects) ?? 0;
    const routes = num(v.routes) ?? 3;
    const detail = `${objects} of ${num(v.objectsInTree) ?? objects} objects × ${routes} routes, ${num(v.attributes) ?? 0} attributes, ${String(v.strata ?? '?')} kinds`;
    return { cases: num(v.attributes) ?? objects, ran: num(v.attributes) ?? objects, digest: v.digest, detail };
  }
  const cases = num(v.cases) ?? 0;
  // A part sent by several checks (the path boundaries go with two properties): the least that ran.
  const ran = Math.min(...values.map((x) => num(x.ran) ?? cases));
  const names = Array.isArray(v.names) ? v.names.map(String) : undefined;
  const detail = typeof v.detail === 'string' ? v.detail : undefined;
  return { cases, ran, digest: v.digest, ...(detail !== undefined && { detail }), ...(names && { names }) };
}

/** The plan the observations record, or nothing when they record no part of it. */
export function coveragePlan(observations: readonly Pick<Observation, 'key' | 'value'>[]): CoveragePlan | undefined {
  const parts: CoveragePlan['parts'] = {};
  for (const [part, key] of Object.entries(PLAN_OBSERVATIONS) as Array<[PlanPart, string]>) {
    const values = observations
      .filter((o) => o.key === key && o.value !== null && typeof o.value === 'object')
      .map((o) => o.value as Record<string, unknown>);
    const record = partOf(part, values);
    if (record) parts[part] = record;
  }
  const present = Object.entries(parts);
  if (present.length === 0) return undefined;
  return { digest: digestOf(present.map(([part, r]) => `${part}:${r.digest}`)), parts };
}

const LABELS: Record<PlanPart, string> = {
  reads: 'reads',
  login: 'login boundaries',
  paths: 'path boundaries',
  writes: 'write boundaries',
  filters: 'event filters',
};

/** "reads 28 of 32 objects × 3 routes, …; path boundaries 70 of 70; …; digest …": how much of the plan ran. */
export function planText(plan: CoveragePlan): string {
  const parts = (Object.entries(plan.parts) as Array<[PlanPart, PlanPartRecord]>).map(([part, r]) => {
    if (part === 'reads') return `${LABELS[part]} ${r.detail}`;
    const ran = r.ran === r.cases ? `${r.cases}` : `${r.ran} of ${r.cases}`;
    return `${LABELS[part]} ${ran}${r.detail ? ` (${r.detail})` : ''}`;
  });
  return [...parts, `digest ${plan.digest}`].join('; ');
}
