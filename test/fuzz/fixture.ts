/** A small synthetic tree for the fuzzer's unit tests. */
import { buildModel } from '../../suites/fuzz/model.js';

export const NS = 'mgmt_project';
export const ROOT = `/xyz/${NS}`;
export const WHO = { user: 'root', password: '0penBmc' };

export const MODEL = buildModel(
  NS,
  [
    `${ROOT}/inventory`,
    `${ROOT}/inventory/system`,
    `${ROOT}/logging`,
    `${ROOT}/logging/entry`,
    `${ROOT}/logging/entry/1`,
    `${ROOT}/software`,
    `${ROOT}/time`,
    `${ROOT}/time/bmc`,
  ],
  {
    [`${ROOT}/inventory/system`]: { AssetTag: 'A', Present: 1, Model: 'M' },
    [`${ROOT}/logging/entry/1`]: { Id: 1, Message: 'x' },
    [`${ROOT}/time/bmc`]: { Elapsed: 12n },
  },
);
