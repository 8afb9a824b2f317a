/**
 * The targets file of a fleet run (schemas/targets.schema.json): one entry per BMC with its URL,
 * user, the name of the environment variable holding its password, its target profile and an
 * optional name and platform label. A password written into the file is refused outright: the
 * file is meant to be committed and shared.
 */
import { withoutTrailingSlashes } from '../../client/trim-end.js';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { loadTargetProfile } from '../target-profile.js';
import { schemaValidator } from '../schema-file.js';
import { UsageError } from '../../client/usage-error.js';

export interface FleetEntry {
  name: string;
  url: string;
  user: string;
  passwordEnv: string;
  /** Absolute path of the entry's target profile. */
  targetProfile: string;
  platform?: string;
  namespace?: string;
  insecure: boolean;
}

interface RawEntry {
  name?: string;
  url: string;
  user?: string;
  passwordEnv: string;
  targetProfile: string;
  platform?: string;
  namespace?: string;
  insecure?: boolean;
}

/** Names of the files a fleet folder holds beside the targets' folders. */
export const RESERVED_NAMES = new Set(['fleet.json', 'summary.html', 'summary.md', 'junit.xml', 'summary.pdf']);

export async function loadTargets(file: string): Promise<FleetEntry[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(
      err instanceof SyntaxError ? `The targets file ${file} is not valid JSON.` : `The targets file ${file} cannot be read.`,
    );
  }
  refuseInlinePasswords(file, doc);
  const check = schemaValidator('targets.schema.json');
  if (!check(doc)) throw new UsageError(sentence(file, check.errors?.[0]));
  const base = dirname(resolve(file));
  const entries: FleetEntry[] = [];
  for (const raw of (doc as { targets: RawEntry[] }).targets) {
    const targetProfile = resolve(base, raw.targetProfile);
    // Read now: a wrong profile is the file's mistake and stops the fleet before any run starts.
    const profile = await loadTargetProfile(targetProfile);
    entries.push({
      name: raw.name ?? nameFromUrl(raw.url),
      url: withoutTrailingSlashes(raw.url),
      user: raw.user ?? 'root',
      passwordEnv: raw.passwordEnv,
      targetProfile,
      platform: raw.platform ?? profile.platform,
      namespace: raw.namespace,
      insecure: raw.insecure ?? false,
    });
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (RESERVED_NAMES.has(e.name))
      throw new UsageError(`The targets file ${file} names a target "${e.name}", which is the name of a fleet report file; rename it.`);
    if (seen.has(e.name)) throw new UsageError(`The targets file ${file} has two targets named "${e.name}"; give each a unique name.`);
    seen.add(e.name);
  }
  return entries;
}

/** Before the schema: its message would say "unknown member", not why it is refused. */
function refuseInlinePasswords(file: string, doc: unknown): void {
  const targets = (doc as { targets?: unknown } | null)?.targets;
  if (!Array.isArray(targets)) return;
  targets.forEach((t: unknown, i) => {
    if (t === null || typeof t !== 'object') return;
    const entry = t as Record<string, unknown>;
    const label = typeof entry.name === 'string' ? `"${entry.name}"` : `#${i + 1}`;
    const inUrl = typeof entry.url === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(entry.url);
    if ('password' in entry || inUrl) {
      throw new UsageError(
        `Target ${label} in ${file} gives its password inline${inUrl ? ' (in the URL)' : ''}; put it in an environment variable and name that variable with "passwordEnv".`,
      );
    }
  });
}

function sentence(file: string, err: ErrorObject | undefined): string {
  if (!err) return `The targets file ${file} is not valid.`;
  const where = err.instancePath ? `"${err.instancePath.slice(1).replace(/\//g, '.')}"` : 'the top level';
  if (err.keyword === 'additionalProperties') {
    return `The targets file ${file} has an unknown member "${(err.params as { additionalProperty: string }).additionalProperty}" at ${where}.`;
  }
  if (/^\/targets\/\d+\/url$/.test(err.instancePath)) return `In the targets file ${file}, ${where} must be an http(s) URL.`;
  if (err.keyword === 'required')
    return `In the targets file ${file}, ${where} needs "${(err.params as { missingProperty: string }).missingProperty}".`;
  return `In the targets file ${file}, ${where} ${err.message ?? 'is not valid'}.`;
}

/** host-port of the URL, usable as a folder name. */
export function nameFromUrl(url: string): string {
  const u = new URL(url);
  const name = `${u.hostname}${u.port ? `-${u.port}` : ''}`.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return name.slice(0, 64) || 'target';
}
