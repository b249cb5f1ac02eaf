import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING, type PricingValues } from '../../money/pricing/defaults';
import { contentDir } from './pages';
import { DOCS_SECTIONS, pricingHighlights, withoutTitle } from './site';

describe('the docs sidebar', () => {
  it('lists every docs page exactly once, quickstart first', () => {
    const files = readdirSync(join(contentDir(), 'docs')).filter((f) => f.endsWith('.md'));
    const expected = files.map((f) => (f === 'index.md' ? '/docs' : `/docs/${f.slice(0, -3)}`)).sort();
    const listed = DOCS_SECTIONS.flatMap((s) => s.paths);
    expect([...listed].sort()).toEqual(expected);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed[0]).toBe('/docs/quickstart');
  });
});

describe('the home page figures', () => {
  it('come from the pricing in force', () => {
    const values: PricingValues = { ...structuredClone(DEFAULT_PRICING), publisher_ad_revenue_share: 0.725, min_payout_usd: 25.5 } as PricingValues;
    expect(pricingHighlights(values).map((h) => h.value)).toEqual(['72.5%', '80%', '$25.50']);
    expect(pricingHighlights(DEFAULT_PRICING as PricingValues).map((h) => h.value)).toEqual(['70%', '80%', '$50']);
  });
});

describe('withoutTitle', () => {
  it('drops the leading h1 only', () => {
    expect(withoutTitle('<h1 id="a">Title</h1>\n<p>x</p><h1>Other</h1>')).toBe('<p>x</p><h1>Other</h1>');
    expect(withoutTitle('<p>no title</p>')).toBe('<p>no title</p>');
  });
});
