/**
 * Where the simulator reports its own troubles (internal errors with their stack, 5xx answers it
 * chose to give, server errors). `simulate` writes them to its terminal; a run with the embedded
 * simulator writes them to a file in its output folder, so they never interleave with its verdicts.
 */
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

export type SimulatorLog = (message: string) => void;

/** The terminal's stderr, each message marked as the simulator's. */
export const terminalLog: SimulatorLog = (message) => void process.stderr.write(`simulator: ${message}\n`);

/** A log file, created on the first message (none when nothing went wrong). */
export class SimulatorLogFile {
  /** Lines written so far. */
  lines = 0;
  private failed = false;

  /** A log of an earlier run at `path` is removed: what is there afterwards is this run's. */
  constructor(readonly path: string) {
    rmSync(path, { force: true });
  }

  readonly log: SimulatorLog = (message) => {
    const text = `${new Date().toISOString()} ${message}\n`;
    if (!this.failed) {
      try {
        if (this.lines === 0) mkdirSync(dirname(this.path), { recursive: true });
        // Synchronous: a message is whole in the file before the answer it explains leaves.
        appendFileSync(this.path, text);
        this.lines += text.split('\n').length - 1;
        return;
      } catch (e) {
        // The file cannot be written: the terminal, once told why, rather than losing the messages.
        this.failed = true;
        terminalLog(`cannot write ${this.path} (${(e as Error).message}); logging here instead`);
      }
    }
    terminalLog(message);
  };
}
