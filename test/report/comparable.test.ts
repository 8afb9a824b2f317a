/** Which baselines a run is compared with: the same target, namespace, profile and selection, run to its end. */
import { describe, expect, test } from 'vitest';
import type { Results } from '../../client/results.js';
import { firmwareChange, whyNotComparable } from '../../report/comparable.js';
import { resultsWith } from './fixture.js';

const base: Results = {
  ...resultsWith(),
  fingerprint: { server: 'nginx', firmware: '2.14.0', objects: 55, loginForm: 'spec' },
};
const embedded = (port: number, dialect = 'spec'): Results => ({ ...base, target: `https://127.0.0.1:${port}`, embedded: { dialect } });
const unselected = (ids: string[], r: Results = base): Results => ({
  ...r,
  requirements: r.requirements.map((q) =>
    ids.includes(q.id) ? { ...q, verdict: 'NOT_TESTED', reason: 'not selected (--requirements)' } : q,
  ),
});

describe('comparable runs', () => {
  test.each<[string, Results]>([
    ['the same run', base],
    ['the same address written otherwise', { ...base, target: 'HTTPS://root:pw@BMC.example:443/' }],
    ['new firmware on the same BMC', { ...base, fingerprint: { ...base.fingerprint, firmware: '2.15.0' } }],
    ['more objects (log entries come and go)', { ...base, fingerprint: { ...base.fingerprint, objects: 80 } }],
    ['this run interrupted (what it judged is still compared)', { ...base, interrupted: { signal: 'SIGINT', at: 't' } }],
  ])('%s: compared', (_name, current) => {
    expect(whyNotComparable(base, current)).toBeUndefined();
  });

  test('the embedded simulator on a new port is the same target; another dialect is not', () => {
    expect(whyNotComparable(embedded(40001), embedded(40002))).toBeUndefined();
    expect(whyNotComparable(embedded(40001), embedded(40002, 'bmcweb'))).toBe(
      'another target (the embedded spec simulator → the embedded bmcweb simulator)',
    );
  });

  test.each<[string, Results, Results, string]>([
    [
      'another address (npm start, then a stand-in)',
      embedded(40001),
      { ...base, target: 'https://127.0.0.1:39589' },
      'another target (the embedded spec simulator → https://127.0.0.1:39589)',
    ],
    [
      'another port',
      base,
      { ...base, target: 'https://bmc.example:8443' },
      'another target (https://bmc.example → https://bmc.example:8443)',
    ],
    [
      'another server at the same address',
      base,
      { ...base, fingerprint: { ...base.fingerprint, server: undefined } },
      'another target (server nginx → unnamed)',
    ],
    [
      'another login body',
      base,
      { ...base, fingerprint: { ...base.fingerprint, loginForm: 'username-password' } },
      'another target (login body spec → username-password)',
    ],
    ['another namespace', base, { ...base, namespace: 'openbmc_project' }, 'another namespace (mgmt_project → openbmc_project)'],
    ['another profile', base, { ...base, profile: 'read-only' }, 'another profile (safe → read-only)'],
    [
      'another selection',
      base,
      unselected(['EP-1', 'EP-2']),
      `another selection (${base.requirements.length} → ${base.requirements.length - 2} requirements selected by --only, --requirements)`,
    ],
    [
      'a baseline that was interrupted',
      { ...base, interrupted: { signal: 'SIGINT', at: '2026-01-02T03:05:00Z' } },
      base,
      'it was interrupted (SIGINT at 2026-01-02T03:05:00Z)',
    ],
    [
      'two differences at once',
      embedded(40001),
      { ...base, profile: 'destructive' },
      'another target (the embedded spec simulator → https://bmc.example), another profile (safe → destructive)',
    ],
  ])('%s: not compared, and why', (_name, previous, current, why) => {
    expect(whyNotComparable(previous, current)).toBe(why);
  });

  test('the same selection among the requirements both catalogues hold: a requirement new to the catalogue does not count', () => {
    const older = { ...base, requirements: base.requirements.filter((r) => r.id !== 'EP-1') };
    expect(whyNotComparable(older, base)).toBeUndefined();
    expect(whyNotComparable(unselected(['EP-2'], older), unselected(['EP-2']))).toBeUndefined();
  });

  test('a firmware change is said beside the comparison', () => {
    expect(firmwareChange(base, { ...base, fingerprint: { ...base.fingerprint, firmware: '2.15.0' } })).toBe('2.14.0 → 2.15.0');
    expect(firmwareChange(base, base)).toBeUndefined();
    expect(firmwareChange(base, { ...base, fingerprint: { loginForm: 'spec' } })).toBeUndefined();
  });
});
