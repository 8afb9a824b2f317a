/** The flags of `run` as commander hands them over (shared by the run and the fleet commands). */
import type { RouteLatency } from '../simulator/route-latency.js';
import type { Area } from '../catalogue/requirements.js';
import type { Profile, TreeSnapshot, WritableAttribute } from '../runner/config.js';
import type { MinJudged } from '../client/results.js';
import type { TargetFlags } from './target-flags.js';

export interface RunFlags extends TargetFlags {
  profile?: Profile;
  only?: Area[];
  requirements?: string[];
  minJudged?: MinJudged;
  out: string;
  writable: WritableAttribute[];
  allowFactoryReset: boolean;
  tftpServer?: string;
  tftpFile: string;
  eventTimeout?: number;
  quietWindow?: number;
  eventWrites?: number;
  fuzzRuns?: number;
  statefulRuns?: number;
  statefulTime?: number;
  treeSnapshot?: TreeSnapshot;
  seed?: number;
  rps?: number;
  maxResponseBytes?: number;
  rebootWait?: number;
  fault: string[];
  dialect?: string;
  eventLatency?: number;
  uploadFailDelay?: number;
  routeLatency?: RouteLatency;
  requestTime?: number;
  html: boolean;
  expectations?: string;
  targetProfile?: string;
  strictExpectations: boolean;
  updateExpectations?: string;
}
