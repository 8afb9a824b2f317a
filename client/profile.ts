/** The words a run and a load share: profiles of what may change on the target, and declared writables. */

export const PROFILES = ['read-only', 'safe', 'destructive'] as const;
export type Profile = (typeof PROFILES)[number];

const PROFILE_RANK: Record<Profile, number> = { 'read-only': 0, safe: 1, destructive: 2 };

/** True when `active` allows what `needed` allows (profiles are nested). */
export function profileAllows(active: Profile, needed: Profile): boolean {
  return PROFILE_RANK[active] >= PROFILE_RANK[needed];
}

/** An attribute the user declared safe to write (and that every write restores). */
export interface WritableAttribute {
  path: string;
  name: string;
  /** Values to cycle through, for enumerations whose other values cannot be guessed. */
  values?: unknown[];
}

/** `PATH:ATTR` or `PATH:ATTR=V1|V2`; undefined when malformed. */
export function parseWritable(value: string): WritableAttribute | undefined {
  const m = /^(\/[^:=]+):([A-Za-z0-9_]+)(?:=(.+))?$/.exec(value);
  if (!m) return undefined;
  const attr: WritableAttribute = { path: m[1]!, name: m[2]! };
  if (m[3]) attr.values = m[3].split('|');
  return attr;
}
