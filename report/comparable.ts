/**
 * Whether a run may be compared with a baseline: the same target (its address, how it names itself,
 * the login body it takes), namespace, profile and selection of requirements, and a baseline that
 * ran to its end. Otherwise the list of changes would be the differences between two targets or two
 * selections, read as regressions and fixes.
 */
import { selectedRequirements, type Results } from '../client/results.js';
import { displayTarget } from './target.js';

/** Why `current` is not compared with `previous`, in a few words; undefined when it is. */
export function whyNotComparable(previous: Results, current: Results): string | undefined {
  const reasons: string[] = [];
  if (previous.interrupted) reasons.push(`it was interrupted (${previous.interrupted.signal} at ${previous.interrupted.at})`);
  const target = targetDifference(previous, current);
  if (target) reasons.push(`another target (${target})`);
  if (previous.namespace !== current.namespace) reasons.push(`another namespace (${previous.namespace} → ${current.namespace})`);
  if (previous.profile !== current.profile) reasons.push(`another profile (${previous.profile} → ${current.profile})`);
  const selection = selectionDifference(previous, current);
  if (selection) reasons.push(selection);
  return reasons.length > 0 ? reasons.join(', ') : undefined;
}

/**
 * The firmware the target runs, when it moved between the runs ("2.14.0 → 2.15.0"). The same BMC
 * on new firmware is what a baseline is for: compared, and said.
 */
export function firmwareChange(previous: Results, current: Results): string | undefined {
  const before = previous.fingerprint?.firmware;
  const after = current.fingerprint?.firmware;
  return before !== undefined && after !== undefined && before !== after ? `${before} → ${after}` : undefined;
}

/** The embedded simulator listens on a new port every run: it is known by its dialect. */
function address(r: Results): string {
  if (r.embedded) return `the embedded ${r.embedded.dialect} simulator`;
  const shown = displayTarget(r.target);
  try {
    return new URL(shown).origin;
  } catch {
    return shown;
  }
}

/**
 * Another address, or the same address answering as another server (its Server header, its login
 * body). The object count moves by itself (log entries) and is not compared.
 */
function targetDifference(previous: Results, current: Results): string | undefined {
  const [a, b] = [address(previous), address(current)];
  if (a !== b) return `${a} → ${b}`;
  const [was, now] = [previous.fingerprint, current.fingerprint];
  if (!was || !now) return undefined;
  if (was.server !== now.server) return `server ${was.server ?? 'unnamed'} → ${now.server ?? 'unnamed'}`;
  if (was.loginForm !== undefined && now.loginForm !== undefined && was.loginForm !== now.loginForm)
    return `login body ${was.loginForm} → ${now.loginForm}`;
  return undefined;
}

/** --only and --requirements chose other requirements (among those both runs' catalogues hold). */
function selectionDifference(previous: Results, current: Results): string | undefined {
  const chosen = (r: Results): Set<string> => new Set(selectedRequirements(r.requirements).map((x) => x.id));
  const [before, after] = [chosen(previous), chosen(current)];
  const inBoth = new Set(previous.requirements.map((r) => r.id));
  const same = current.requirements.filter((r) => inBoth.has(r.id)).every((r) => before.has(r.id) === after.has(r.id));
  return same ? undefined : `another selection (${before.size} → ${after.size} requirements selected by --only, --requirements)`;
}
