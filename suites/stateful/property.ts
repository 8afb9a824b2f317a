/**
 * A stateful check as a fuzzing property: fast-check generates command sequences (fc.commands),
 * runs each against the model and the target (fc.asyncModelRun), shrinks a failing one to the
 * shortest sequence that still shows the finding, and replays it from the run's seed and the
 * printed path (BMC_FUZZ_PATH=key[/REQ]:path), through the fuzz area's search and replay.
 *
 * Every command runs: one that has nothing to act on says so in its step, and a sequence stopped
 * by a finding lets the rest pass through. So "which commands ran" is always "all of them", and
 * the replay path of fc.commands can be fixed instead of printed.
 */
import fc from 'fast-check';
import type { FuzzProperty, Judge } from '../fuzz/runner.js';
import { Notes, type World } from './world.js';
import { messageOf } from '../../client/errors.js';

/** The `i`th of `list`, around again past its end: a command's parameter is an index resolved against the model. */
export const pick = <T>(list: readonly T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);

/** fc.commands' record of which commands ran: all of them (4,096 entries, more than any shrink needs). */
export const ALL_COMMANDS_RAN = `${'/'.repeat(64)}:${'/'.repeat(11)}`;

/**
 * A command of a sequence: its printed form, `kind(parameters)` (fast-check prints it, the budget
 * reads its kind), and what it does. It always runs, and does nothing once the sequence has stopped.
 */
export class Command<W extends World<unknown>> implements fc.AsyncCommand<W, W> {
  constructor(
    private readonly text: string,
    private readonly action: (w: W) => Promise<void>,
    /** Where its name says too little: the kind the budget knows it by, and how long it takes at least. */
    private readonly budget: { kind?: string; leastMs?: () => number } = {},
  ) {}

  check(): boolean {
    return true;
  }

  async run(w: W): Promise<void> {
    // Once cut, the rest of the sequence is cut too: the commands that ran stay a prefix of it.
    if (w.stopped || w.cut) return;
    // The sequence ends here when this command and the closing quiet window would not end within
    // the check's time budget. Its first command runs unless it is known not to fit (a kind of
    // command that took longer before): a sequence does something, if it can.
    const expected = this.expectedMs(w);
    if ((w.commandsRun > 0 || expected > 0) && !w.fitsBudget(expected)) {
      w.cut = true;
      return;
    }
    w.commandsRun++;
    w.notes.commands++;
    const started = performance.now();
    try {
      await this.action(w);
    } catch (err) {
      w.stop(err);
    } finally {
      const kind = this.budgetKind();
      w.notes.longestCommand.set(kind, Math.max(w.notes.longestCommand.get(kind) ?? 0, performance.now() - started));
    }
  }

  /** What the time budget knows commands of this kind by: its name, before the parameters, unless it was given one. */
  budgetKind(): string {
    return this.budget.kind ?? this.toString().replace(/\(.*$/, '');
  }

  /**
   * How long this command is expected to take: the longest of its kind so far in the check, or its
   * least if longer. A kind not seen yet is expected to take as long as the longest command of any
   * kind so far: on a target whose reads cost seconds, the first sequence too ends within the budget.
   */
  expectedMs(w: W): number {
    const seen = w.notes.longestCommand.get(this.budgetKind()) ?? Math.max(0, ...w.notes.longestCommand.values());
    return Math.max(seen, this.budget.leastMs?.() ?? 0);
  }

  toString(): string {
    return this.text;
  }
}

/** The property's key, requirements and requests per run (a run is one sequence), and how its sequences go. */
export interface StatefulSpec<W extends World<unknown>> extends Pick<FuzzProperty<unknown>, 'key' | 'requirements' | 'requestsPerRun'> {
  /** One command, drawn from a weighted choice of the kinds the profile allows. */
  command: fc.Arbitrary<fc.AsyncCommand<W, W>>;
  maxCommands: number;
  /** A new world for one sequence (opening what every sequence starts with), noting in the property's notes. */
  open(judge: Judge, notes: Notes): Promise<W>;
  /** The judgement once the last command ran (events that came late). */
  finish(w: W): Promise<void>;
  /** Puts the target back as the sequence found it. */
  close(w: W): Promise<void>;
}

/** Shrinks tried per finding at most: each one is a whole sequence against the target. */
const MAX_SHRINKS = 10;

/**
 * A property whose sequences never overlap: fast-check's time limit stops waiting for a running
 * sequence but cannot stop it, so the next one (and the check, through `settled`) waits for it
 * to finish and put the target back.
 */
export type StatefulProperty<T> = FuzzProperty<T> & {
  /** What its sequences learned, for the check's verdict and observations. */
  readonly notes: Notes;
  settled(): Promise<unknown>;
  /**
   * From now on, no sequence starts that would not end within `ms`, judged by the longest one so
   * far (the first always runs), and one under way starts no command that, with its closing quiet
   * window, would not end within it, judged by the longest of its kind so far (its first runs
   * unless so judged); a skipped one counts as passed, so shrinking stops with the best.
   */
  budget(ms: number): void;
  /** One sequence, outside the budget: the evidence of a finding, run again. */
  replay(value: T, judge: Judge): Promise<void>;
};

export function statefulProperty<W extends World<unknown>>(spec: StatefulSpec<W>): StatefulProperty<Iterable<fc.AsyncCommand<W, W>>> {
  const notes = new Notes();
  let running: Promise<unknown> = Promise.resolve();
  let deadline = Number.POSITIVE_INFINITY;
  let longest = 0;
  const exclusive = async (commands: Iterable<fc.AsyncCommand<W, W>>, judge: Judge, budgeted: boolean): Promise<void> => {
    await running;
    if (budgeted && notes.sequences > 0 && performance.now() + longest > deadline) {
      notes.overBudget++;
      return;
    }
    const started = performance.now();
    const run = sequence(commands, judge, budgeted).finally(() => (longest = Math.max(longest, performance.now() - started)));
    running = run.catch(() => undefined);
    return run;
  };
  const sequence = async (commands: Iterable<fc.AsyncCommand<W, W>>, judge: Judge, budgeted: boolean): Promise<void> => {
    notes.sequences++;
    let w: W;
    try {
      w = await spec.open(judge, notes);
    } catch (err) {
      notes.unjudgedSequences++;
      notes.unjudged.add(messageOf(err));
      return;
    }
    if (budgeted) w.deadline = deadline;
    try {
      await fc.asyncModelRun(() => ({ model: w, real: w }), commands);
      if (w.cut) notes.cutByBudget++;
      if (!w.stopped) {
        try {
          await spec.finish(w);
        } catch (err) {
          w.stop(err);
        }
      }
    } finally {
      await spec.close(w);
    }
    if (w.violation) throw w.violation;
    if (w.unjudged) {
      notes.unjudgedSequences++;
      notes.unjudged.add(w.unjudged);
    }
  };
  return {
    notes,
    key: spec.key,
    requirements: spec.requirements,
    requestsPerRun: spec.requestsPerRun,
    // Without fast-check's bias to small values: a handful of sequences must each be of some length.
    arbitrary: fc.limitShrink(
      fc.noBias(fc.commands([spec.command], { maxCommands: spec.maxCommands, replayPath: ALL_COMMANDS_RAN })),
      MAX_SHRINKS,
    ),
    predicate: (commands, judge) => exclusive(commands, judge, true),
    replay: (commands, judge) => exclusive(commands, judge, false),
    budget: (ms) => {
      deadline = performance.now() + ms;
    },
    settled: () => running,
  };
}
