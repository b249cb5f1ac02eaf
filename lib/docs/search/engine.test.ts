import { describe, expect, it } from 'vitest';
import { normalizeTerm, snippetAround } from './engine';

describe('search terms', () => {
  it.each([
    ['Payouts', 'payout'],
    ['policies', 'policy'],
    ['access', 'access'],
    ['status', 'status'],
    ['the', null],
    ['How', null],
    ['PKCE', 'pkce'],
  ])('%s → %s', (term, expected) => {
    expect(normalizeTerm(term)).toBe(expected);
  });
});

describe('snippets', () => {
  const text = `${'Lorem ipsum dolor sit amet. '.repeat(20)}The minimum payout is 50 USD, paid monthly. ${'Consectetur adipiscing elit. '.repeat(20)}`;

  it('are at most 200 characters, ellipses included, and contain the matched term', () => {
    const s = snippetAround(text, ['minimum']);
    expect(s.length).toBeLessThanOrEqual(200);
    expect(s).toContain('minimum payout is 50 USD');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
  });

  it('start at the beginning when nothing matches, and return short text whole', () => {
    expect(snippetAround(text, ['absent']).startsWith('Lorem')).toBe(true);
    expect(snippetAround('Short text.', ['short'])).toBe('Short text.');
  });

  it('treat terms as text, not patterns', () => {
    expect(() => snippetAround(text, ['(', '[a-', '*'])).not.toThrow();
  });
});
