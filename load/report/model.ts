/** The shape of one scenario's results in load.json, whatever engine produced them. */
import type { CapacityResult } from '../capacity/capacity.js';
import type { EventFigures } from '../events.js';
import type { LatencySummary } from '../histogram.js';
import type { StepFigures } from '../open-loop.js';
import type { RunFigures } from '../recorder.js';
import type { Drift } from '../soak.js';
import type { UploadFigures } from '../upload-loop.js';

/** closed: autocannon, N connections. open: a fixed rate. ramp: rising rate steps. capacity: the search. */
export type LoadMode = 'closed' | 'open' | 'ramp' | 'capacity';

export interface ScenarioReport extends RunFigures {
  scenario: string;
  description: string;
  mode: LoadMode;
  /** The request path of single-request scenarios. */
  path?: string;
  connections: number;
  /** Open loop: the offered rate (requests/s). */
  rate?: number;
  /** Open loop and ramp: figures per rate step. */
  steps?: StepFigures[];
  sendLagMs?: LatencySummary;
  /** --find-capacity; the figures above are then those of the highest sustained step. */
  capacity?: CapacityResult;
  events?: EventFigures;
  uploads?: UploadFigures;
  drift?: Drift;
}
