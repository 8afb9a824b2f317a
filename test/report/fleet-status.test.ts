/** A fleet target whose run judged nothing is "not judged", never "passed", and fails the fleet (exit 2). */
import { describe, expect, test } from 'vitest';
import { fleetExitCode, fleetHeadline } from '../../report/fleet-counts.js';
import type { FleetTarget } from '../../report/fleet-matrix.js';

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
