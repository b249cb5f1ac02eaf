import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allPages } from '@/lib/docs/content/pages';
import { searchPages, snippetOf } from '@/lib/docs/search/engine';

/**
 * Questions a publisher or an agent would ask, each with the page that answers it. Every one
 * must have its page in the top 3; the log says how many are first.
 */

interface Question {
  q: string;
  page: string;
}

const questions: Question[] = JSON.parse(readFileSync(path.resolve(__dirname, '../fixtures/search-questions.json'), 'utf8'));

function rankOf(q: Question): number {
  const hits = searchPages(q.q);
  return hits.findIndex((h) => h.path === q.page) + 1; // 0: not found
}

describe('search relevance', () => {
  it('has at least 25 questions, each naming a real page', () => {
    expect(questions.length).toBeGreaterThanOrEqual(25);
    const paths = new Set(allPages().map((p) => p.path));
    for (const q of questions) expect(paths.has(q.page), `${q.q} → ${q.page}`).toBe(true);
  });

  it('puts the answering page in the top 3 for every question', () => {
    const ranks = questions.map((q) => ({ ...q, rank: rankOf(q) }));
    const first = ranks.filter((r) => r.rank === 1).length;
    const top3 = ranks.filter((r) => r.rank >= 1 && r.rank <= 3).length;
    const misses = ranks.filter((r) => r.rank === 0 || r.rank > 3);
    // The relevance figures, in the test log, so a change to ranking shows its effect.
    console.info(`search relevance: ${first}/${ranks.length} first, ${top3}/${ranks.length} in the top 3`);
    for (const m of ranks.filter((r) => r.rank !== 1)) {
      console.info(`  rank ${m.rank || 'none'}: "${m.q}" → ${m.page} (first: ${searchPages(m.q)[0]?.path ?? 'nothing'})`);
    }
    expect(misses).toEqual([]);
  });

  it.each([
    ['payuot minimum', '/docs/payouts'],
    ['minimun payuot', '/docs/payouts'],
    ['acess tokn', '/docs/authentication'],
  ])('tolerates typos: "%s" still finds %s in the top 3', (q, page) => {
    expect(rankOf({ q, page })).toBeGreaterThanOrEqual(1);
    expect(rankOf({ q, page })).toBeLessThanOrEqual(3);
  });

  it('matches prefixes: "sandb" finds the sandbox page', () => {
    expect(searchPages('sandb')[0]?.path).toBe('/docs/sandbox');
  });

  it('keeps snippets within 200 characters and around a matched term', () => {
    for (const q of ['payout', 'rate limit headers', 'PKCE code verifier', 'x'.repeat(3)]) {
      for (const hit of searchPages(q)) {
        expect(snippetOf(hit).length).toBeLessThanOrEqual(200);
      }
    }
    const [hit] = searchPages('Retry-After');
    expect(snippetOf(hit!).toLowerCase()).toContain('retry');
  });

  it('finds nothing for words no page has', () => {
    expect(searchPages('zzzzqqqq')).toEqual([]);
  });
});
