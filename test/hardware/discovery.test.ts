/**
 * Without --writable, a destructive run finds the conventional writables itself (proving each with
 * a write read back and restored) and tests the writes and events it can: at most 5 NOT_TESTED,
 * against the simulator and each field dialect as a target of its own.
 */
import { describe, expect, test } from 'vitest';
import { notTested, runAgainst } from './run.js';
import { hangAfter } from '../support/hang.js';

describe.each([
  ['the simulator', {}],
  ['the phosphor-rest dialect', { dialect: 'phosphor-rest' as const, eventLatencyMs: 100, uploadFailDelayMs: 300, requestMs: 0 }],
  ['the bmcweb dialect', { dialect: 'bmcweb' as const, uploadFailDelayMs: 300 }],
])('a destructive run without --writable against %s', (_what, sim) => {
  test(
    'finds writables, says which, leaves nothing behind and leaves at most 5 requirements NOT_TESTED',
    async () => {
      const outcome = await runAgainst(sim, { profile: 'destructive' });
      const found = outcome.results.discovered?.writable ?? [];
      expect(found.length).toBeGreaterThanOrEqual(2);
      // The read-only LED group was tried and refused, never used.
      expect(found.some((w) => w.includes('bmc_booted'))).toBe(false);
      expect(notTested(outcome).length, notTested(outcome).join('\n')).toBeLessThanOrEqual(5);
      expect(outcome.results.trace?.lines).toEqual([]);
    },
    hangAfter(120_000),
  );
});

test(
  'a safe run without --writable writes nothing it was not given',
  async () => {
    const outcome = await runAgainst({}, { profile: 'safe', only: ['writes'] });
    expect(outcome.results.discovered).toBeUndefined();
    expect(notTested(outcome).some((r) => r.startsWith('EP-8: no safely writable attribute'))).toBe(true);
    expect(outcome.results.trace?.verdict).toBe('PASS');
  },
  hangAfter(60_000),
);
