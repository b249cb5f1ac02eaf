import MiniSearch, { type SearchResult } from 'minisearch';
import { Lru } from '../../platform/cache/lru';
import { allPages } from '../content/pages';
import { absoluteUrl } from '../../platform/http/responses';
import { normalizeTerm, snippetAround } from '../search/engine';
import { passagesOf, type Passage } from './passages';

/**
 * /ask: an answer composed from the passages of the docs that best match a question, each cited
 * by its page and section URL (content/docs/agents.md). No language model: the answer is the
 * passages' own most relevant sentences, in the docs' own words, so every claim can be checked
 * against the citation it carries.
 */

/** At most this many passages make an answer, one per section. */
export const MAX_CITATIONS = 3;
/** Sentences taken from each passage. */
const SENTENCES_PER_PASSAGE = 2;
/** A further passage joins the answer only when it scores at least this fraction of the best. */
const RELATIVE_SCORE = 0.5;
/** Characters of a passage quoted in its citation. */
const PASSAGE_MAX = 300;

export interface Citation {
  /** The page's title. */
  title: string;
  /** The section's heading, or null for a page's introduction. */
  section: string | null;
  /** The page URL on this service, with the section's anchor when there is one. */
  url: string;
  /** The passage the answer quotes, up to 300 characters. */
  passage: string;
}

export interface Answer {
  question: string;
  /** False when no passage matched well enough: the answer then says so and cites nothing. */
  found: boolean;
  /** Sentences of the cited passages; `[n]` after a sentence points at `citations[n-1]`. */
  answer: string;
  citations: Citation[];
}

export const NOT_FOUND_ANSWER =
  'I could not find an answer to this in the Monetize docs. Try other words, or search the docs with GET /api/v1/search?q=…, which lists every page that matches.';

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** The distinct meaningful terms of a text (stop words dropped, plurals folded), as the index sees them. */
export function termsOf(text: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term) terms.add(term);
  }
  return [...terms];
}

interface PassageDoc {
  id: number;
  text: string;
  section: string;
  title: string;
}

let built: { search: MiniSearch<PassageDoc>; passages: Passage[] } | undefined;

function build() {
  const passages = allPages().flatMap(passagesOf);
  const search = new MiniSearch<PassageDoc>({
    fields: ['text', 'section', 'title'],
    storeFields: [],
    processTerm: normalizeTerm,
    searchOptions: {
      // A section heading says what its passages are about ("Minimum payout"), and so does the page title.
      boost: { text: 1, section: 3, title: 2 },
      // Less length normalisation than BM25's usual 0.75: a one-line pointer ("The formats are described
      // in Ad formats.") must not outrank the paragraph that answers. Tuned on the search-relevance questions.
      bm25: { k: 1.2, b: 0.5, d: 0.5 },
      prefix: (term) => term.length >= 4,
      // Typos in longer words only: a made-up word must not land on a real one.
      fuzzy: (term) => (term.length >= 8 ? 2 : term.length >= 5 ? 1 : 0),
      maxFuzzy: 2,
      combineWith: 'OR',
    },
  });
  search.addAll(passages.map((p, id) => ({ id, text: p.text, section: p.section ?? '', title: p.pageTitle })));
  return { search, passages };
}

/** Built once per process, on first use, never per request. */
function passageIndex() {
  built ??= build();
  return built;
}

/**
 * How many of a question's terms a passage must match: one of a short question's, and for longer
 * questions about half of them, at most three (a long question carries words no passage has).
 */
export function termsRequired(questionTerms: number): number {
  if (questionTerms <= 2) return 1;
  return Math.min(3, Math.ceil(questionTerms / 2));
}

const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u;

/** Sentences of a passage: its lines (list items, table rows), each cut after `.`, `!` or `?`. */
export function sentencesOf(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line) => line.split(SENTENCE_END))
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A sentence that only points elsewhere ("See Payouts and earnings.") or introduces a code block
 * left out of the passage ("Read the live value with:") says nothing on its own.
 */
function standsAlone(sentence: string): boolean {
  return !/^see\b/i.test(sentence) && !sentence.endsWith(':');
}

/**
 * The sentences of a passage worth quoting, in the passage's order, at most two: those with a
 * matched term. When the section's heading matched, the heading asked the question (an FAQ entry,
 * "Minimum payout") and the passage's first sentence answers it, so that one comes first.
 */
export function quotedSentences(text: string, matched: ReadonlySet<string>, headingMatched = false): string[] {
  const candidates = sentencesOf(text).filter(standsAlone);
  const relevant = candidates.filter((s, i) => (headingMatched && i === 0) || termsOf(s).some((t) => matched.has(t)));
  return (relevant.length ? relevant : candidates).slice(0, SENTENCES_PER_PASSAGE);
}

interface Hit {
  passage: Passage;
  score: number;
  /** Terms of the passage that matched (index terms, fuzzy and prefix matches included). */
  matched: Set<string>;
  /** How many of the question's terms found something in the passage. */
  coverage: number;
}

function hitsFor(question: string): Hit[] {
  const { search, passages } = passageIndex();
  const results: SearchResult[] = search.search(question);
  return results.map((r) => ({
    passage: passages[r.id as number]!,
    score: r.score,
    matched: new Set(r.terms),
    coverage: new Set(r.queryTerms).size,
  }));
}

/**
 * The best passages that match enough of the question and score near the best: one per section,
 * and only those with a sentence that says something on its own.
 */
export function selectHits(hits: Hit[], questionTerms: number): Hit[] {
  const required = termsRequired(questionTerms);
  const eligible = hits.filter((h) => h.coverage >= required);
  const best = eligible[0];
  if (!best) return [];
  const chosen: Hit[] = [];
  const sections = new Set<string>();
  for (const hit of eligible) {
    if (chosen.length === MAX_CITATIONS || hit.score < best.score * RELATIVE_SCORE) break;
    const section = `${hit.passage.path}#${hit.passage.anchor ?? ''}`;
    if (sections.has(section) || !sentencesOf(hit.passage.text).some(standsAlone)) continue;
    sections.add(section);
    chosen.push(hit);
  }
  return chosen;
}

function citationOf(hit: Hit, terms: string[]): Citation {
  const { passage } = hit;
  const flat = passage.text.replace(/\s+/g, ' ');
  return {
    title: passage.pageTitle,
    section: passage.section,
    url: absoluteUrl(passage.anchor ? `${passage.path}#${passage.anchor}` : passage.path),
    passage: snippetAround(flat, [...hit.matched, ...terms], PASSAGE_MAX),
  };
}

/**
 * The answer from the chosen passages: each one's quoted sentences, then its citation number. A
 * sentence already quoted from an earlier passage is not repeated.
 */
export function compose(question: string, hits: Hit[], terms: string[]): Answer {
  if (hits.length === 0) return { question, found: false, answer: NOT_FOUND_ANSWER, citations: [] };
  const quoted = new Set<string>();
  const parts: string[] = [];
  const cited: Hit[] = [];
  for (const hit of hits) {
    const { section, text } = hit.passage;
    const headingMatched = section !== null && termsOf(section).some((t) => hit.matched.has(t));
    const fresh = quotedSentences(text, hit.matched, headingMatched).filter((s) => !quoted.has(s.toLowerCase()));
    if (fresh.length === 0) continue;
    for (const s of fresh) quoted.add(s.toLowerCase());
    cited.push(hit);
    parts.push(`${fresh.join(' ')} [${cited.length}]`);
  }
  // Every passage repeating an earlier one cannot happen to the first: this is a safeguard.
  if (cited.length === 0) return { question, found: false, answer: NOT_FOUND_ANSWER, citations: [] };
  return { question, found: true, answer: parts.join(' '), citations: cited.map((h) => citationOf(h, terms)) };
}

/** Answers already given: the docs do not change while the process runs (one per instance, in its services). */
export type AskAnswers = Lru<string, Answer>;

/** A new cache of answers (the services hold the process's one). */
export function askAnswers(): AskAnswers {
  return new Lru('ask-answers', 500);
}

/** The answer to a question (already trimmed and within QUESTION_MAX), from `answered` when it was given before. */
export function ask(question: string, answered: AskAnswers): Answer {
  const known = answered.get(question);
  if (known) return known;
  const terms = termsOf(question);
  const answer = compose(question, terms.length ? selectHits(hitsFor(question), terms.length) : [], terms);
  answered.set(question, answer);
  return answer;
}
