import { describe, expect, it } from 'vitest';
import { trimEnd, withoutTrailingSlashes } from '../../client/trim-end.js';

describe('trimEnd', () => {
  it('drops a run of trailing characters and keeps the rest', () => {
    expect(withoutTrailingSlashes('https://bmc/api///')).toBe('https://bmc/api');
    expect(withoutTrailingSlashes('/xyz//a')).toBe('/xyz//a');
    expect(withoutTrailingSlashes('///')).toBe('');
    expect(trimEnd("/xyz/a.:!'", ".:!?'")).toBe('/xyz/a');
  });

  it('agrees with the regex it replaces on paths of many slashes', () => {
    for (const s of ['/'.repeat(5000) + 'x', 'x' + '/'.repeat(5000), '/a//b///', '']) {
      expect(withoutTrailingSlashes(s)).toBe(s.replace(/\/+$/, ''));
    }
  });
});
