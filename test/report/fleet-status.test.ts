/** A fleet target whose run judged nothing is "not judged", never "passed", and fails the fleet (exit 2). */
import { describe, expect, test } from 'vitest';
import { fleetExitCode, fleetHeadline } from '../../report/fleet/counts.js';
import type { FleetTarget } from '../../report/fleet/matrix.js';

const target = (name: string, status: FleetTarget['status']): FleetTarget =>
  ({ name, url: `https://${name}`, status, exitCode: 0, durationMs: 1 }) as FleetTarget;

describe('fleet status of a run that judged nothing', () => {
  test('counts as not judged and makes the fleet exit 2', () => {
    const matrix = { targets: [target('a', 'passed'), target('b', 'not judged')] };
    expect(fleetHeadline(matrix)).toBe('2 targets: 1 passed, 1 not judged');
    expect(fleetExitCode(matrix)).toBe(2);
    expect(fleetExitCode({ targets: [target('a', 'passed')] })).toBe(0);
  });
});

describe('fleet status of a target that refused the login', () => {
  test('is "login refused", not "unreachable", and makes the fleet exit 2', async () => {
    const { targetOutcome } = await import('../../runner/fleet/outcome.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'bmc-fleet-status-'));
    try {
      const entry = { name: 'a', url: 'https://bmc-a', passwordEnv: 'PW', targetProfile: 'p.json' };
      const ended = (stderr: string) =>
        targetOutcome(
          entry as never,
          { code: 2, signal: null, stdout: '', stderr, startedAt: Date.now(), durationMs: 5 } as never,
          dir,
          [],
        );
      const refused = await ended(
        'Login as root was refused (401 Unauthorized): check --user and --password (or BMC_USER and BMC_PASSWORD).\n',
      );
      expect(refused.status).toBe('login refused');
      expect(refused.message).toMatch(/^Login as root was refused/);
      expect((await ended('Cannot reach https://bmc-a: connection refused.\n')).status).toBe('unreachable');
      expect(fleetHeadline({ targets: [refused] })).toBe('1 target: 1 login refused');
      expect(fleetExitCode({ targets: [target('b', 'passed'), refused] })).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
