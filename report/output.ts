/**
 * What every report output gets, and the one way it writes a file: through `write`, which blanks
 * out the run's secrets whatever the text holds, so no output can leak a credential by mistake.
 */
import type { Results } from '../client/results.js';
import type { Trend } from './changes.js';
import type { LoadRun } from './load-figures.js';
import type { ToolInfo } from './tool-info.js';

export interface ReportContext {
  /** The run's output folder. */
  dir: string;
  results: Results;
  /** Changes since the baseline run, when there is one. */
  trend?: Trend;
  /** A sibling load run in the same folder, when there is one. */
  load?: LoadRun;
  tool: ToolInfo;
  /** The Allure history of the baseline report, when there is one. */
  allureHistory?: string;
  /** `text` with the run's secrets blanked out. */
  redact(text: string): string;
  /** Writes `text` to `name` (relative to `dir`), redacted. */
  write(name: string, text: string): Promise<void>;
}

export interface ReportOutput {
  /** Files (relative to the run folder) this output owns: a new run clears them first. */
  files: readonly string[];
  write(ctx: ReportContext): Promise<void>;
}
