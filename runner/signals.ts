/**
 * Ctrl-C and SIGTERM, for every job (run, load, replay, a fleet) along one path.
 *
 * While a job starts (its modules load, the embedded simulator starts) the early handler answers:
 * nothing was written yet, so the process says so and exits 130 or 143 instead of dying silently.
 * Once a job takes the signals (`JobSignals`) the early handler is released. The job's first signal
 * stops it gracefully: it starts nothing new, restores what it wrote, writes what it has (marked
 * interrupted) and exits 130 or 143. A later signal exits at once (run, load, replay) or is passed
 * on again (a fleet, to its runs: each run then exits at once).
 */
export type StopSignal = 'SIGINT' | 'SIGTERM';

export const SIGNAL_EXIT: Record<StopSignal, 130 | 143> = { SIGINT: 130, SIGTERM: 143 };
const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/** Where the signals come from and how the process ends: the process itself, or a fake in tests. */
export interface SignalHost {
  on(signal: StopSignal, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: StopSignal, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
  /** A line on stderr (the console of a process about to end). */
  warn(line: string): void;
}

const processHost: SignalHost = {
  on: (signal, listener) => process.on(signal, listener),
  off: (signal, listener) => process.off(signal, listener),
  exit: (code) => process.exit(code),
  warn: (line) => process.stderr.write(`${line}\n`),
};

/** A later signal ends the process at once, with its own exit code (after `note`, when given). */
export interface ExitAtOnce {
  exit: true;
  note?: (signal: StopSignal) => string;
}

export interface JobSignalOptions {
  /** The first signal: what the job says as it starts stopping (its `onStop` callbacks run next). */
  first: (signal: StopSignal) => void;
  /** Every later signal. */
  again: ExitAtOnce | ((signal: StopSignal) => void);
  host?: SignalHost;
}

/** The SIGINT and SIGTERM handling of one job, from its start to `dispose()`. */
export class JobSignals {
  /** The first signal, once it came. */
  signal?: StopSignal;
  at?: Date;
  private readonly host: SignalHost;
  private readonly stops = new Set<(signal: StopSignal) => void>();
  private readonly listener = (received: NodeJS.Signals): void => this.receive(received as StopSignal);

  constructor(
    private readonly opts: JobSignalOptions,
    { takeOver = true }: { takeOver?: boolean } = {},
  ) {
    this.host = opts.host ?? processHost;
    for (const s of SIGNALS) this.host.on(s, this.listener);
    // In place before the early handler goes: no moment without one.
    if (takeOver) releaseEarlySignals();
  }

  /** 130 or 143 once a signal came. */
  get exitCode(): 130 | 143 | undefined {
    return this.signal && SIGNAL_EXIT[this.signal];
  }

  /** Runs `stop` when the first signal comes (at once if it came already). */
  onStop(stop: (signal: StopSignal) => void): void {
    if (this.signal) stop(this.signal);
    this.stops.add(stop);
  }

  dispose(): void {
    for (const s of SIGNALS) this.host.off(s, this.listener);
  }

  private receive(signal: StopSignal): void {
    if (this.signal) {
      const again = this.opts.again;
      if (typeof again === 'function') return again(signal);
      if (again.note) this.host.warn(again.note(signal));
      return this.host.exit(SIGNAL_EXIT[signal]);
    }
    this.signal = signal;
    this.at = new Date();
    this.opts.first(signal);
    for (const stop of this.stops) stop(signal);
  }
}

/**
 * A run's or a load's signals: the first says so on the job's console and stops the job; a second
 * exits at once, saying what may be left on the target.
 */
export class Interruption extends JobSignals {
  constructor(print: (line: string) => void, host?: SignalHost) {
    super({
      first: (signal) =>
        print(`${interruptedReason(signal)}: restoring what it wrote and closing its sessions; a second signal exits at once`),
      again: { exit: true, note: (signal) => `${signal} again: exiting at once; what the run wrote may be left on the target.` },
      host,
    });
  }

  /** "the run was interrupted (SIGINT)", once a signal came. */
  get reason(): string | undefined {
    return this.signal && interruptedReason(this.signal);
  }
}

const interruptedReason = (signal: StopSignal): string => `the run was interrupted (${signal})`;

let early: JobSignals | undefined;

/** Until a job takes the signals: any signal says nothing was written and exits 130 or 143. */
export function holdEarlySignals(host?: SignalHost): void {
  if (early) return;
  const to = host ?? processHost;
  early = new JobSignals(
    {
      first: (signal) => {
        to.warn(`${signal} before the run started: nothing was written to the target.`);
        to.exit(SIGNAL_EXIT[signal]);
      },
      again: { exit: true },
      host: to,
    },
    { takeOver: false },
  );
}

/** The job's own handler is in place: the early one goes (JobSignals calls this). */
export function releaseEarlySignals(): void {
  early?.dispose();
  early = undefined;
}
