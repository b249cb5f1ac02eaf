import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allPages, pageByPath, type Page } from '../content/pages';
import { env } from '../../platform/env';
import { ask, askAnswers, NOT_FOUND_ANSWER, quotedSentences, selectHits, sentencesOf, termsOf, termsRequired } from './answer';
import { markdownToText } from '../content/pages';
import { passagesOf } from './passages';

const page = (markdown: string, headings: Page['headings'] = []): Page => ({
  path: '/docs/x',
  title: 'X',
  description: 'x',
  markdown,
  html: '',
  headings,
  text: '',
});

describe('passages', () => {
  it('cut a page at its headings, into paragraphs, lists and table rows, leaving code out', () => {
    const md = [
      '# X',
      '',
      'Intro paragraph.',
      '',
      '## Minimum payout',
      '',
      '**Minimum payout: 50 USD.** See [Payouts](/docs/payouts).',
      '',
      '```sh',
      'curl https://monetize.example/api/v1/pricing',
      '```',
      '',
      '- One item.',
      '- Two `min_payout_usd` item',
      '  wrapped.',
      '',
      '| Format | CPM (USD) |',
      '|---|---|',
      '| `tooltip` | 4 |',
    ].join('\n');
    const passages = passagesOf(
      page(md, [
        { depth: 1, text: 'X', id: 'x' },
        { depth: 2, text: 'Minimum payout', id: 'minimum-payout' },
      ]),
    );
    expect(passages.map((p) => [p.section, p.anchor, p.text])).toEqual([
      [null, null, 'Intro paragraph.'],
      ['Minimum payout', 'minimum-payout', 'Minimum payout: 50 USD. See Payouts.'],
      ['Minimum payout', 'minimum-payout', 'One item.\nTwo min_payout_usd item wrapped.'],
      ['Minimum payout', 'minimum-payout', 'tooltip — CPM (USD): 4.'],
    ]);
  });

  it('keep identifiers and code spans whole', () => {
    expect(markdownToText('`floating_video` and `sponsored_card`, paid_at and **bold**')).toBe('floating_video and sponsored_card, paid_at and bold');
  });

  it('link every section of the site to an anchor its page has', () => {
    for (const p of allPages()) {
      const ids = new Set(p.headings.map((h) => h.id));
      for (const passage of passagesOf(p)) {
        if (passage.section === null) continue;
        expect(passage.anchor, `${p.path}: ${passage.section}`).not.toBeNull();
        expect(ids.has(passage.anchor!)).toBe(true);
      }
    }
  });

  it('leave no code in the text', () => {
    const pricing = passagesOf(pageByPath('/pricing')!);
    expect(pricing.some((p) => p.text.includes('curl'))).toBe(false);
  });
});

describe('answer composition', () => {
  it('needs one term of a short question and about half of a longer one, at most three', () => {
    expect([1, 2, 3, 4, 5, 6, 10, 40].map(termsRequired)).toEqual([1, 1, 2, 2, 3, 3, 3, 3]);
  });

  it('reads the terms of a question as the index does', () => {
    expect(termsOf('What is the minimum payout?')).toEqual(['minimum', 'payout']);
    expect(termsOf('the of and')).toEqual([]);
  });

  it('cuts sentences at . ! ? before a capital or a digit, and at line ends', () => {
    expect(sentencesOf('One is e.g. this. Two! 3 follows? yes\nLine two')).toEqual(['One is e.g. this.', 'Two!', '3 follows? yes', 'Line two']);
  });

  it('quotes the sentences with a matched term, without pointers and introductions to code', () => {
    const text = 'The smallest balance paid out is 50 USD. Monthly periods apply. Read the balance with:\nSee Balances for the balance.';
    expect(quotedSentences(text, new Set(['balance']))).toEqual(['The smallest balance paid out is 50 USD.']);
    expect(quotedSentences(text, new Set(['nothing']))).toEqual(['The smallest balance paid out is 50 USD.', 'Monthly periods apply.']);
    // An FAQ entry: the heading asked, the first sentence answers.
    expect(quotedSentences('Up to one hour. There are no refresh tokens.', new Set(['token']), true)).toEqual([
      'Up to one hour.',
      'There are no refresh tokens.',
    ]);
  });
});

describe('choosing passages', () => {
  const hit = (anchor: string, text: string, score: number, coverage = 2) => ({
    passage: { path: '/docs/x', pageTitle: 'X', section: anchor, anchor, text },
    score,
    matched: new Set(['payout']),
    coverage,
  });

  it('takes up to three, one per section, scoring at least half the best, matching enough of the question', () => {
    const hits = [
      hit('a', 'Best.', 10),
      hit('a', 'Same section.', 9),
      hit('b', 'Too few terms.', 8, 1),
      hit('c', 'Second.', 6),
      hit('d', 'Third.', 5),
      hit('e', 'Fourth.', 5),
    ];
    expect(selectHits(hits, 4).map((h) => h.passage.text)).toEqual(['Best.', 'Second.', 'Third.']);
    expect(selectHits([hit('a', 'Best.', 10), hit('b', 'Weak.', 4.9)], 2).map((h) => h.passage.text)).toEqual(['Best.']);
  });

  it('skips passages that only point elsewhere or introduce code', () => {
    expect(
      selectHits([hit('a', 'See Payouts.', 10), hit('b', 'Read it with:', 9), hit('c', 'The payout is monthly.', 8)], 2).map((h) => h.passage.anchor),
    ).toEqual(['c']);
  });

  it('finds nothing when no passage matches enough of the question', () => {
    expect(selectHits([hit('a', 'One term only.', 10, 1)], 4)).toEqual([]);
  });
});

describe('ask', () => {
  it('answers the minimum payout question with 50 USD, each sentence numbered after its citation', () => {
    const a = ask('What is the minimum payout?', askAnswers());
    expect(a.found).toBe(true);
    expect(a.answer).toMatch(/50 USD/);
    expect(a.citations.length).toBeGreaterThanOrEqual(1);
    expect(a.citations.length).toBeLessThanOrEqual(3);
    a.citations.forEach((c, i) => {
      expect(a.answer).toContain(`[${i + 1}]`);
      expect(c.url.startsWith(`${env().PUBLIC_BASE_URL}/`)).toBe(true);
      expect(c.passage.length).toBeLessThanOrEqual(300);
    });
    expect(new Set(a.citations.map((c) => c.url)).size).toBe(a.citations.length);
  });

  it('cites nothing and says so when nothing matches', () => {
    for (const q of ['Xyzzy plugh frobnicate?', 'banana bread recipe', 'who won the world cup', 'the of and']) {
      expect(ask(q, askAnswers())).toEqual({ question: q, found: false, answer: NOT_FOUND_ANSWER, citations: [] });
    }
  });

  it('cites the page that answers most of the search-relevance questions', () => {
    const questions: { q: string; page: string }[] = JSON.parse(readFileSync(path.resolve(__dirname, '../../../tests/fixtures/search-questions.json'), 'utf8'));
    const cited = questions.filter((q) => ask(q.q, askAnswers()).citations.some((c) => new URL(c.url).pathname === q.page));
    // 63 of 64 when this was written; the miss cites neighbouring pages.
    expect(cited.length / questions.length).toBeGreaterThanOrEqual(0.9);
  });
});
