import { describe, expect, test } from 'vitest';
import { headline, HEADLINE_MAX } from '../../client/headline.js';

describe('headline', () => {
  test('a short first line stays whole', () => {
    expect(headline('GET /x answered 500\nstack')).toBe('GET /x answered 500');
  });

  test('a long line is cut between words, with an ellipsis, within the limit', () => {
    const text = `${'the subscription delivered the priming change but none of the writes that followed '.repeat(6)}end`;
    const h = headline(text);
    expect(h.length).toBeLessThanOrEqual(HEADLINE_MAX);
    expect(h.endsWith('…')).toBe(true);
    const kept = h.slice(0, -1);
    expect(text.startsWith(kept)).toBe(true);
    // The character after the cut is a space: no word was cut in two.
    expect(text.charAt(kept.length)).toBe(' ');
  });

  test('one word longer than the limit is cut where the room ends', () => {
    const h = headline(`/${'a'.repeat(500)}`);
    expect(h.length).toBe(HEADLINE_MAX);
  });
});
