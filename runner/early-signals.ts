/**
 * A Ctrl-C or SIGTERM that comes while `run` is still starting (modules loading, the embedded
 * simulator starting), before the run's own handler (interrupt.ts) or the fleet's is in place:
 * nothing was written yet, so the process says so and exits 130 or 143, instead of dying by the
 * signal with nothing on its console. The handler that takes over releases this one.
 */
const EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

const early = (signal: NodeJS.Signals): void => {
  process.stderr.write(`${signal} before the run started: nothing was written to the target.\n`);
  process.exit(EXIT[signal] ?? 1);
};

let held = false;

export function holdEarlySignals(): void {
  if (held) return;
  held = true;
  process.on('SIGINT', early);
  process.on('SIGTERM', early);
}

export function releaseEarlySignals(): void {
  if (!held) return;
  held = false;
  process.off('SIGINT', early);
  process.off('SIGTERM', early);
}
