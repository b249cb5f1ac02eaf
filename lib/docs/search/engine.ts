import MiniSearch, { type SearchResult } from 'minisearch';
import { allPages, type Page } from '../content/pages';
import { absoluteUrl } from '../../platform/http/responses';

/**
 * Docs search over the public pages: MiniSearch (BM25+ ranking) with prefix matching on every
 * term, typo tolerance that grows with the word's length, and titles boosted. The index is built
 * once per process, on first use, never per request.
 */

// Words that carry no meaning in a question ("how do I get an access token").
const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i if in is it me my of on or our so that the their them then there these this to was we what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * Lowercase, drop stop words, and fold simple English plurals so "payouts" finds "payout".
 * (Folding -ing and -ed too was tried: it ranked 2 of the 64 relevance questions lower.)
 */
export function normalizeTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (t.length === 0 || STOP_WORDS.has(t)) return null;
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') && !t.endsWith('us')) return t.slice(0, -1);
  return t;
}

/** Edits allowed for a term: none for short words, one from 4 letters, two from 6 ("payuot"). */
function fuzziness(term: string): number {
  if (term.length >= 6) return 2;
  if (term.length >= 4) return 1;
  return 0;
}

interface Doc {
  id: string;
  title: string;
  headings: string;
  description: string;
  text: string;
}

export interface SearchHit {
  path: string;
  title: string;
  score: number;
  /** The words of the page that matched, and the words of the query: where a snippet centres. */
  terms: string[];
}

interface Indexed {
  page: Page;
  /** The page's text on one line, and lowercased, prepared once for snippets. */
  flat: string;
  lower: string;
}

let index: { search: MiniSearch<Doc>; pages: Map<string, Indexed> } | undefined;

function build() {
  const pages = allPages();
  const search = new MiniSearch<Doc>({
    fields: ['title', 'headings', 'description', 'text'],
    storeFields: [],
    processTerm: normalizeTerm,
    searchOptions: {
      boost: { title: 4, headings: 2, description: 2, text: 1 },
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => fuzziness(term),
      maxFuzzy: 2,
      combineWith: 'OR',
    },
  });
  search.addAll(
    pages.map((p) => ({
      id: p.path,
      title: p.title,
      headings: p.headings.map((h) => h.text).join(' \n '),
      description: p.description,
      text: p.text,
    })),
  );
  const prepared = pages.map((page) => {
    const flat = page.text.replace(/\s+/g, ' ').trim();
    return [page.path, { page, flat, lower: flat.toLowerCase() }] as const;
  });
  return { search, pages: new Map(prepared) };
}

function searchIndex() {
  index ??= build();
  return index;
}

export const SNIPPET_MAX = 200;

const WORD = /[\p{L}\p{N}]/u;

/** Where `term` first starts a word in `lower` (-1: nowhere). */
function wordStart(lower: string, term: string): number {
  for (let i = lower.indexOf(term); i !== -1; i = lower.indexOf(term, i + 1)) {
    if (i === 0 || !WORD.test(lower[i - 1]!)) return i;
  }
  return -1;
}

/** Up to 200 characters of `text` around the first of `terms` it contains. */
export function snippetAround(text: string, terms: readonly string[], max = SNIPPET_MAX, lowerText?: string): string {
  const flat = lowerText === undefined ? text.replace(/\s+/g, ' ').trim() : text;
  const lower = lowerText ?? flat.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const i = term ? wordStart(lower, term.toLowerCase()) : -1;
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  if (flat.length <= max) return flat;
  if (at === -1) at = 0;
  // Some context before the match, as much as fits after it; the ellipses count toward the 200.
  let start = Math.max(0, at - 60);
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  const lead = start > 0 ? '…' : '';
  let end = Math.min(flat.length, start + max - lead.length);
  const tail = end < flat.length ? '…' : '';
  if (tail) {
    end -= 1;
    const space = flat.lastIndexOf(' ', end);
    if (space > at && space > start) end = space;
  }
  return `${lead}${flat.slice(start, end).trimEnd()}${tail}`;
}

/** Every page matching `query`, best first (ties by path, so pages of results are stable). */
export function searchPages(query: string): SearchHit[] {
  const { search, pages } = searchIndex();
  const results: SearchResult[] = search.search(query);
  return results
    .map((r) => {
      const { page } = pages.get(String(r.id))!;
      return { path: page.path, title: page.title, score: Math.round(r.score * 1000) / 1000, terms: [...r.terms, ...r.queryTerms] };
    })
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
}

/** The snippet of one hit; computed only for the hits a response returns. */
export function snippetOf(hit: SearchHit): string {
  const indexed = searchIndex().pages.get(hit.path)!;
  return snippetAround(indexed.flat, hit.terms, SNIPPET_MAX, indexed.lower);
}

/** A hit as the search API and the docs MCP's `search_docs` return it. */
export function resultOf(hit: SearchHit): { title: string; url: string; score: number; snippet: string } {
  return { title: hit.title, url: absoluteUrl(hit.path), score: hit.score, snippet: snippetOf(hit) };
}
