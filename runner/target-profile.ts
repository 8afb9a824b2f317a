/**
 * Target profiles: one reviewed JSON file per platform (schemas/target-profile.schema.json) with
 * the namespace, the attributes safe to write, how to find a deletable instance, a TFTP source,
 * timeouts, the request-rate cap, concurrency, the event latency to expect, and the platform's
 * known deviations. An expectations file (platform, expected, writable) is a profile too.
 *
 * Paths may say {ns} for the namespace; flags given on the command line win over the profile.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { packageRoot } from '../client/package-root.js';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isRequirementId } from '../catalogue/requirements.js';
import { parseWritable, type TftpSource, type WritableAttribute } from './config.js';
import { UsageError } from '../client/usage-error.js';
import { schemaValidator } from './schema-file.js';
import { createHash } from 'node:crypto';

export interface TargetProfile {
  file: string;
  /** The file's SHA-256: a report names exactly which deviations it applied. */
  sha256?: string;
  platform?: string;
  namespace?: string;
  /** With {ns} still in the paths: filled in once the namespace is known (`forNamespace`). */
  writable: WritableAttribute[];
  deletable: string[];
  tftp?: TftpSource;
  timeouts: { requestMs?: number; eventMs?: number; quietWindowMs?: number };
  eventLatency: { expectedMs?: number; maxMs?: number };
  rps?: number;
  concurrency?: number;
  eventWrites?: number;
  /** Requirement ID → the recorded reason (with its source reference when the file gives one). */
  expected: Record<string, string>;
}

interface RawProfile {
  platform?: string;
  namespace?: string;
  writable?: Array<string | { path: string; name: string; values?: string[] }>;
  deletable?: string[];
  tftp?: TftpSource;
  timeouts?: TargetProfile['timeouts'];
  eventLatency?: TargetProfile['eventLatency'];
  rps?: number;
  concurrency?: number;
  eventWrites?: number;
  expected?: Record<string, string | { reason: string; source?: string }>;
}

/** The first schema error as a sentence: where in the file, and what is wrong. */
function sentence(file: string, err: ErrorObject | undefined): string {
  if (!err) return `The target profile ${file} is not valid.`;
  const where = err.instancePath ? `"${err.instancePath.slice(1).replace(/\//g, '.')}"` : 'the top level';
  if (/^\/writable\/\d+/.test(err.instancePath))
    return `In the target profile ${file}, ${where} must be PATH:ATTR[=V1|V2] or {"path", "name", "values"}.`;
  if (/^\/expected\//.test(err.instancePath))
    return `In the target profile ${file}, the reason for ${where} must be a string or {"reason", "source"}.`;
  if (err.keyword === 'additionalProperties') {
    return `The target profile ${file} has an unknown member "${(err.params as { additionalProperty: string }).additionalProperty}" at ${where}.`;
  }
  return `In the target profile ${file}, ${where} ${err.message ?? 'is not valid'}.`;
}

export async function loadTargetProfile(file: string): Promise<TargetProfile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`The target profile ${file} cannot be read.`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new UsageError(`The target profile ${file} is not valid JSON.`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UsageError(`The target profile ${file} is not a JSON object.`);
  const check = schemaValidator('target-profile.schema.json');
  if (!check(doc)) throw new UsageError(sentence(file, check.errors?.[0]));
  const raw = doc as RawProfile;
  const expected: Record<string, string> = {};
  for (const [id, entry] of Object.entries(raw.expected ?? {})) {
    if (!isRequirementId(id)) throw new UsageError(`The target profile ${file} names unknown requirement ${id}.`);
    expected[id] = typeof entry === 'string' ? entry : `${entry.reason}${entry.source ? ` [${entry.source}]` : ''}`;
  }
  const writable = (raw.writable ?? []).map((w) =>
    typeof w === 'string' ? parseWritable(w)! : { path: w.path, name: w.name, ...(w.values && { values: w.values }) },
  );
  return {
    file,
    sha256: createHash('sha256').update(text).digest('hex'),
    platform: raw.platform,
    namespace: raw.namespace,
    writable,
    deletable: raw.deletable ?? [],
    tftp: raw.tftp,
    timeouts: raw.timeouts ?? {},
    eventLatency: raw.eventLatency ?? {},
    rps: raw.rps,
    concurrency: raw.concurrency,
    eventWrites: raw.eventWrites,
    expected,
  };
}

/** The profile's paths with {ns} filled in. */
export function forNamespace(profile: TargetProfile, ns: string): TargetProfile {
  const fill = (p: string) => p.replaceAll('{ns}', ns);
  return {
    ...profile,
    writable: profile.writable.map((w) => ({
      ...w,
      path: fill(w.path),
      ...(w.values && { values: w.values.map((v) => (typeof v === 'string' ? fill(v) : v)) }),
    })),
    deletable: profile.deletable.map(fill),
  };
}

/**
 * The target profiles the tool ships (profiles/), by name, and their folder as the user can pass it:
 * relative to the working directory when it is below it, else absolute.
 */
export function shippedProfiles(): { dir: string; names: string[] } {
  const dir = join(packageRoot(), 'profiles');
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
  } catch {
    names = [];
  }
  const shown = relative(process.cwd(), dir);
  return { dir: shown === '' || shown.startsWith('..') || isAbsolute(shown) ? dir : shown, names };
}
