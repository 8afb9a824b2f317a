/**
 * The glue between fast-check's model-based testing and the fuzz area's search and replay, on a
 * target kept in memory: a failing sequence shrinks to the commands that show the finding, the
 * replay key with the seed runs exactly that sequence again, and the report fits its line.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { replayCaseFor } from '../../suites/fuzz/repro.js';
import { runProperty, searchProperty, type Judge } from '../../suites/fuzz/runner.js';
import { Command, statefulProperty } from '../../suites/stateful/property.js';
import { findingMessage } from '../../suites/stateful/stateful-check.js';
import { StatefulViolation, World, type StatefulEnv } from '../../suites/stateful/world.js';

/** A counter that loses its value when it is read after passing 3 (the "bug"). */
class CounterWorld extends World {
  value = 0;
  stored = 0;
}

const add = (n: number) =>
  new Command<CounterWorld>(`add(${n})`, async (w) => {
    w.rec.begin(`add ${n}`);
    w.value += n;
    w.stored = w.value > 3 ? 0 : w.value;
  });

/** A command that takes its time (an upload a field server refuses after seconds, in miniature). */
const slow = () =>
  new Command<CounterWorld>('slow()', async (w) => {
    w.rec.begin('slow');
    await new Promise((r) => setTimeout(r, 40));
  });

const read = () =>
  new Command<CounterWorld>('read()', async (w) => {
    w.rec.begin('read');
    if (w.stored !== w.value) w.find('EP-4', `read ${w.stored}, the model holds ${w.value}`);
  });

function counterProperty(openMs = 0) {
  return statefulProperty<CounterWorld>({
    key: 'counter',
    requirements: ['EP-4', 'EP-8'],
    command: fc.oneof(fc.integer({ min: 1, max: 3 }).map(add), fc.constant(null).map(read)),
    maxCommands: 8,
    requestsPerRun: 1,
    open: async (judge: Judge, notes) => {
      if (openMs > 0) await new Promise((r) => setTimeout(r, openMs));
      return new CounterWorld({ quietWindowMs: 0 } as StatefulEnv, judge, notes);
    },
    finish: async () => undefined,
    close: async () => undefined,
  });
}

describe('stateful properties', () => {
  test('a failing sequence shrinks to the steps that show it, and its replay key runs exactly those again', async () => {
    const first = await runProperty(counterProperty(), { numRuns: 200, runSeed: 7, timeLimitMs: 20_000 });
    expect(first.failed).toBe(true);
    const v = first.violation as StatefulViolation;
    expect(v).toBeInstanceOf(StatefulViolation);
    expect(v.requirement).toBe('EP-4');
    // The shortest sequences that show it: two additions past 3, then a read.
    expect(v.steps.map((s) => s.text).at(-1)).toBe('read');
    expect(v.steps.length).toBeLessThanOrEqual(3);

    const key = `counter:${first.counterexamplePath}`;
    expect(replayCaseFor('counter', key)).toEqual({ path: first.counterexamplePath, requirement: undefined });
    const again = await runProperty(counterProperty(), {
      numRuns: 200,
      runSeed: 7,
      timeLimitMs: 20_000,
      replay: replayCaseFor('counter', key),
    });
    expect(again.numRuns).toBe(1);
    expect((again.violation as StatefulViolation).steps.map((s) => s.text)).toEqual(v.steps.map((s) => s.text));
  });

  test('the first line of a finding names the problem, the steps and the replay, within 400 characters', async () => {
    const [report] = await searchProperty(counterProperty(), { numRuns: 200, runSeed: 7, timeLimitMs: 20_000 });
    const message = findingMessage(report!, 'https://127.0.0.1:8443');
    const line = message.split('\n')[0]!;
    expect(line).toMatch(/^read \d, the model holds \d — after \d step\(s\): 1\. add \d; 2\. /);
    expect(line).toContain(`replay: --seed 7 BMC_FUZZ_PATH=counter/EP-4:${report!.counterexamplePath}`);
    expect(line.length).toBeLessThanOrEqual(400);
  });

  test('once a finding stops a sequence, the commands after it do nothing', async () => {
    const p = counterProperty();
    const { notes } = p;
    const judge: Judge = {
      violation: (req, problem) => {
        throw new StatefulViolation(req, problem, []);
      },
    };
    const commands = [add(3), add(3), read(), add(1), read()];
    await expect(p.predicate(commands, judge)).rejects.toBeInstanceOf(StatefulViolation);
    expect(notes.commands).toBe(3);
  });

  test('a time budget starts no sequence that would not end within it, but always the first, and replays outside it', async () => {
    // Sequences of about 60 ms under a budget of 100 ms: the first runs, and at most one more.
    const p = counterProperty(60);
    const { notes } = p;
    p.budget(100);
    const never: Judge = { violation: () => undefined };
    for (let i = 0; i < 5; i++) await p.predicate([add(1)], never);
    expect(notes.sequences).toBeGreaterThanOrEqual(1);
    expect(notes.sequences).toBeLessThanOrEqual(2);
    expect(notes.overBudget).toBe(5 - notes.sequences);
    const before = notes.sequences;
    await p.replay([add(1)], never);
    expect(notes.sequences).toBe(before + 1);
  });

  test('a sequence under way runs no command past the budget but its first; a replay runs them all', async () => {
    const p = counterProperty(60);
    const { notes } = p;
    p.budget(10);
    const never: Judge = { violation: () => undefined };
    await p.predicate([add(1), add(1), read()], never);
    expect(notes.commands).toBe(1);
    expect(notes.cutByBudget).toBe(1);
    await p.replay([add(1), add(1), read()], never);
    expect(notes.commands).toBe(4);
    expect(notes.cutByBudget).toBe(1);
  });

  test('a command that would not end within the budget, judged by the longest of its kind, does not start, nor any after it', async () => {
    const p = counterProperty();
    const { notes } = p;
    p.budget(70);
    const never: Judge = { violation: () => undefined };
    // slow() takes 40 ms: the second would end past 70 ms; add(1), quick, would fit but follows it.
    await p.predicate([slow(), slow(), add(1)], never);
    expect(notes.commands).toBe(1);
    expect(notes.cutByBudget).toBe(1);
    expect(notes.longestCommand.get('slow')).toBeGreaterThanOrEqual(39);
  });

  test('a kind not seen yet is expected to take as long as the longest command so far: it does not start past the budget', async () => {
    const p = counterProperty();
    const { notes } = p;
    // slow() takes 40 ms; add(1), never run yet, is taken for as long: 80 ms would end past 70.
    p.budget(70);
    const never: Judge = { violation: () => undefined };
    await p.predicate([slow(), add(1)], never);
    expect(notes.commands).toBe(1);
    expect(notes.cutByBudget).toBe(1);
    // Within a budget that holds both, both run.
    const roomy = counterProperty();
    roomy.budget(5_000);
    await roomy.predicate([slow(), add(1)], never);
    expect(roomy.notes.commands).toBe(2);
  });

  test('a command given a kind and a least duration of its own is budgeted by them, even as the first', async () => {
    const p = counterProperty();
    p.budget(70);
    const never: Judge = { violation: () => undefined };
    const slowKind = new Command<CounterWorld>('upload(existing, POST, 0)', async (w) => w.rec.begin('upload'), {
      kind: 'upload(existing)',
      leastMs: () => 100,
    });
    await p.predicate([slowKind, add(1)], never);
    expect(p.notes.commands).toBe(0);
    expect(p.notes.cutByBudget).toBe(1);
    await p.replay([slowKind], never);
    expect([...p.notes.longestCommand.keys()]).toEqual(['upload(existing)']);
  });
});
