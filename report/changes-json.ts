/** changes.json: the verdicts that changed since the baseline, for scripts. */
import type { ReportOutput } from './output.js';

export const CHANGES_JSON = 'changes.json';

export const changesJson: ReportOutput = {
  files: [CHANGES_JSON],
  async write(ctx) {
    if (ctx.trend) await ctx.write(CHANGES_JSON, `${JSON.stringify(ctx.trend.changes, null, 2)}\n`);
  },
};
