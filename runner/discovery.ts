/**
 * Discovery of safely writable attributes, for a destructive run that was given none: candidates
 * among the attributes OpenBMC platforms conventionally let a client write (and the spec's
 * RequestedHostTransition, last), each proven with a write of another value that is read back,
 * then restored and read back. Only the read-only and safe profiles never write what was not
 * named; this runs in the destructive profile alone.
 */
import { okData } from '../client/answer.js';
import type { BmcClient } from '../client/http.js';
import { sameValue } from '../client/values.js';
import type { WritableAttribute } from './config.js';

interface Candidate {
  /** Under /xyz/{ns}; `*` is every child listed there. */
  path: string;
  name: string;
  values?: (ns: string) => string[];
}

const CANDIDATES: readonly Candidate[] = [
  { path: 'led/groups/*', name: 'Asserted' },
  { path: 'led/physical/*', name: 'State', values: (ns) => ['Off', 'On', 'Blink'].map((a) => `xyz.${ns}.Led.Physical.Action.${a}`) },
  { path: 'logging/entry/*', name: 'Resolved' },
  { path: 'control/power_cap', name: 'PowerCap' },
  { path: 'inventory/system', name: 'AssetTag' },
];

/** Powers the host: tried only when nothing else could be written. */
const HOST_TRANSITION: Candidate = {
  path: 'state/host0',
  name: 'RequestedHostTransition',
  values: (ns) => ['Off', 'On'].map((t) => `xyz.${ns}.State.Host.Transition.${t}`),
};

/** At most this many objects of one candidate path are tried (a platform may have dozens of LEDs). */
const TRIES_PER_CANDIDATE = 4;
const ENOUGH = 4;

export interface Discovery {
  writable: WritableAttribute[];
  /** What was tried and why it was not used. */
  refused: string[];
}

async function expand(client: BmcClient, root: string, path: string): Promise<string[]> {
  if (!path.endsWith('/*')) return [`${root}/${path}`];
  const parent = `${root}/${path.slice(0, -2)}`;
  const kids = okData(await client.get(`${parent}/`));
  return Array.isArray(kids)
    ? kids
        .filter((k): k is string => typeof k === 'string' && k.startsWith(`${parent}/`))
        .sort()
        .slice(0, TRIES_PER_CANDIDATE)
    : [];
}

/** Another value of the same kind, or undefined when none can be chosen safely. */
function another(current: unknown, values: string[] | undefined): unknown {
  if (values) return values.find((v) => v !== current);
  if (typeof current === 'boolean') return !current;
  if (current === 0 || current === 1) return 1 - current;
  if (typeof current === 'number' && Number.isInteger(current)) return current + 1;
  if (typeof current === 'string' && !/^xyz\./.test(current)) return `${current}-bmcc`.slice(-64);
  return undefined;
}

async function valueOf(client: BmcClient, path: string, name: string): Promise<unknown> {
  return okData(await client.get(`${path}/attr/${name}`));
}

/** Writes `next`, reads it back, writes `original` back and reads that back: the proof. */
async function prove(client: BmcClient, path: string, name: string, original: unknown, next: unknown): Promise<string | undefined> {
  const put = await client.put(`${path}/attr/${name}`, next);
  if (put.status < 200 || put.status >= 300) return `PUT ${name} answered ${put.status}`;
  const written = await valueOf(client, path, name);
  const back = await client.put(`${path}/attr/${name}`, original);
  const restored = await valueOf(client, path, name);
  if (!sameValue(restored, original))
    return `could not be put back (PUT answered ${back.status}, reads ${JSON.stringify(restored)}): LEFT CHANGED`;
  if (!sameValue(written, next)) return `a write of ${JSON.stringify(next)} read back ${JSON.stringify(written)}`;
  return undefined;
}

export async function discoverWritables(client: BmcClient, ns: string): Promise<Discovery> {
  const root = `/xyz/${ns}`;
  const writable: WritableAttribute[] = [];
  const refused: string[] = [];
  const tryCandidate = async (c: Candidate): Promise<boolean> => {
    for (const path of await expand(client, root, c.path)) {
      const original = await valueOf(client, path, c.name);
      if (original === undefined) continue;
      const values = c.values?.(ns);
      const next = another(original, values);
      if (next === undefined) continue;
      const problem = await prove(client, path, c.name, original, next);
      if (problem) {
        refused.push(`${path}:${c.name} (${problem})`);
        continue;
      }
      writable.push({ path, name: c.name, ...(values && { values }) });
      return true;
    }
    return false;
  };
  for (const c of CANDIDATES) {
    if (writable.length >= ENOUGH) break;
    await tryCandidate(c);
  }
  if (writable.length < 2) await tryCandidate(HOST_TRANSITION);
  return { writable, refused };
}
