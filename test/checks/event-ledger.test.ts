/** The ledger of causes: what a write the target took is recorded as, whatever its body looked like. */
import { beforeEach, describe, expect, test } from 'vitest';
import type { Exchange } from '../../client/evidence.js';
import { startNextRun } from '../../client/run-scoped.js';
import { eventLedger, noteCause, sameKind } from '../../suites/harness/event-ledger.js';

const OBJ = '/xyz/mgmt_project/led/physical/identify';

function put(body: string, status: number): Exchange {
  return {
    at: new Date().toISOString(),
    method: 'PUT',
    url: `${OBJ}/attr/State`,
    requestHeaders: {},
    requestBody: body,
    status,
    durationMs: 1,
  };
}

beforeEach(() => startNextRun());

describe('the causes of writes (EV-2, EV-8)', () => {
  test('a body with a byte order mark is read as the field reads it: the write and its value', () => {
    noteCause(put('\ufeff{"data":"Blink"}', 200));
    const [c] = eventLedger().causes;
    expect(c).toMatchObject({ kind: 'put-attr', path: OBJ, values: { State: 'Blink' }, outcome: 'accepted' });
  });

  test('a body the ledger cannot read that the target took is a change no one can place; refused, it is nothing', () => {
    noteCause(put('{"data":"Blink"', 400));
    expect(eventLedger().causes).toHaveLength(0);
    noteCause(put('{"data":"Blink"', 200));
    expect(eventLedger().causes).toMatchObject([{ kind: 'other', path: OBJ, outcome: 'accepted' }]);
  });

  test('a readable body is its write, with its value', () => {
    noteCause(put('{"data":"Off"}', 200));
    expect(eventLedger().causes).toMatchObject([{ kind: 'put-attr', values: { State: 'Off' } }]);
  });

  test('an integer beyond 2^53 is kept exact, as answers and events are parsed, and is a number like any other', () => {
    noteCause(put('{"data":18446744073709551615}', 200));
    expect(eventLedger().causes[0]!.values.State).toBe(18446744073709551615n);
    expect(sameKind(600, 18446744073709551615n)).toBe(true);
    expect(sameKind('600', 18446744073709551615n)).toBe(false);
  });
});
