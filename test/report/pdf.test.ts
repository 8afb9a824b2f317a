import { afterEach, expect, test } from 'vitest';
import { printSummaryPdf } from '../../report/pdf.js';
import { temporaryFolders } from './fixture.js';

const folders = temporaryFolders();
const path = process.env.PATH;
afterEach(async () => {
  process.env.PATH = path;
  await folders.removeAll();
});

test('without Chromium, report --pdf says so in one sentence and writes nothing', async () => {
  const dir = await folders.make('bmc-pdf-');
  process.env.PATH = await folders.make('bmc-empty-path-');
  const outcome = await printSummaryPdf(dir);
  expect(outcome).toEqual({ skipped: 'summary.pdf was not written: there is no Chromium on the PATH (apt-get install chromium).' });
});
