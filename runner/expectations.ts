/**
 * An expectations file records a platform's known deviations once: they are still reported as
 * FAIL, marked expected, and do not fail the run; one that stops failing is flagged (WARN) so the
 * file is kept true.
 *
 * { "platform": "…", "expected": { "RULE-4": "answers 405" }, "writable": ["/xyz/…:Asserted"] }
 */
import { readFile } from 'node:fs/promises';
import { isRequirementId } from '../catalogue/requirements.js';
import { parseWritable, type WritableAttribute } from './config.js';
import type { RequirementResult } from './results.js';
import { UsageError } from './usage-error.js';

export interface Expectations {
  file: string;
  platform?: string;
  expected: Record<string, string>;
  writable: WritableAttribute[];
}

export async function loadExpectations(file: string): Promise<Expectations> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`The expectations file ${file} cannot be read.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`The expectations file ${file} is not valid JSON.`);
  }
  const doc = parsed as { platform?: unknown; expected?: unknown; writable?: unknown };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError(`The expectations file ${file} is not a JSON object.`);
  const expected = (doc.expected ?? {}) as Record<string, unknown>;
  if (typeof expected !== 'object' || Array.isArray(expected)) throw new UsageError(`"expected" in ${file} must map requirement IDs to reasons.`);
  for (const [id, reason] of Object.entries(expected)) {
    if (!isRequirementId(id)) throw new UsageError(`The expectations file ${file} names unknown requirement ${id}.`);
    if (typeof reason !== 'string') throw new UsageError(`The reason for ${id} in ${file} must be a string.`);
  }
  const listed = doc.writable ?? [];
  const writable = Array.isArray(listed) ? listed.map((w) => (typeof w === 'string' ? parseWritable(w) : undefined)) : [undefined];
  if (writable.some((w) => w === undefined)) throw new UsageError(`"writable" in ${file} must be an array of PATH:ATTR strings.`);
  return {
    file,
    platform: typeof doc.platform === 'string' ? doc.platform : undefined,
    expected: expected as Record<string, string>,
    writable: writable as WritableAttribute[],
  };
}

export interface ExpectedRequirement extends RequirementResult {
  /** The FAIL is a known deviation of the platform, with its recorded reason. */
  expected?: string;
}

export function applyExpectations(requirements: RequirementResult[], exp: Expectations | undefined): ExpectedRequirement[] {
  if (!exp) return requirements;
  return requirements.map((r) => {
    const known = exp.expected[r.id];
    if (known === undefined) return r;
    if (r.verdict === 'FAIL') return { ...r, expected: known };
    if (r.verdict === 'PASS' || r.verdict === 'WARN') {
      return { ...r, verdict: 'WARN', reason: `expected to fail (${known}) but now ${r.verdict}: update ${exp.file}` };
    }
    return r;
  });
}

/** FAILs that count against the run: the unexpected ones. */
export function unexpectedFailures(requirements: ExpectedRequirement[]): ExpectedRequirement[] {
  return requirements.filter((r) => r.verdict === 'FAIL' && r.expected === undefined);
}
