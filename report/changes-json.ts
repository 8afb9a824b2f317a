/** changes.json: the verdicts that changed since the baseline, for scripts. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReportOutput } from './output.js';

export const CHANGES_JSON = 'changes.json';

export const changesJson: ReportOutput = {
  files: [CHANGES_JSON],
  async write(ctx) {
    if (ctx.trend && !ctx.trend.notComparable) await ctx.write(CHANGES_JSON, `${JSON.stringify(ctx.trend.changes, null, 2)}\n`);
    // Without a comparison an earlier rendering's list would read as this one's.
    else await rm(join(ctx.dir, CHANGES_JSON), { force: true });
  },
};
