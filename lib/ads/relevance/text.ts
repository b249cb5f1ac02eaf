import { stemmer } from 'stemmer';

/**
 * Words as the relevance and safety checks compare them: lower case, accents dropped,
 * apostrophes joined ("don't" is "dont"), and for hints each word cut to its stem by the Porter
 * algorithm, so "notes", "noting" and "note" are one word; an "'s" is dropped, a possessive's
 * ("the party's" reads "the party") and a contraction's alike ("it's" reads "it"). Digits are
 * words too ("401k", "2fa"). Pure, and the same on every engine: nothing here reaches a database.
 */

/** Common English words that say nothing about a topic: a phrase of these alone is no hint. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by can could did do does ' +
    'doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself ' +
    'just me more most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which ' +
    'while who whom why will with would you your yours yourself yourselves im ive id ill youre youve its thats whats dont doesnt didnt cant wont ' +
    'isnt arent wasnt werent hasnt havent hadnt shouldnt wouldnt couldnt also get got ok okay yes yeah hi hello hey please thanks thank lol one ' +
    'really thing things something anything like want need know think use using make way much many well still even let us'
  ).split(' '),
);

/** The words of `text`, in order, each lower-cased and without accents, before stemming. */
export function plainWords(text: string): string[] {
  // Text without a character past ASCII has no accent to drop: its NFKD form is itself.
  const unaccented = /^[\x00-\x7f]*$/.test(text) ? text : text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return (
    unaccented
      .toLowerCase()
      .replace(/['’‘`]s\b/g, '') // a possessive: "the party's" is "the party"
      .replace(/['’‘`]/g, '')
      .match(/[a-z0-9]+/g) ?? []
  );
}

/** The longest phrase matched, in words: a hint or topic is at most this long (lib/schemas says so to advertisers). */
export const MAX_PHRASE_WORDS = 5;

/**
 * A phrase as it is matched: each of its words stemmed, common words kept, joined by spaces ("to
 * do list", "where to stay"). A phrase of common words alone ("the", "it") matches nothing: null.
 */
export function phraseKey(phrase: string): string | null {
  const words = plainWords(phrase);
  if (words.length === 0 || words.length > MAX_PHRASE_WORDS || words.every((w) => STOPWORDS.has(w))) return null;
  return words.map((w) => stemmer(w)).join(' ');
}

/** True when the phrase is one word: a broader hint than a phrase of several. */
export function isOneWord(key: string): boolean {
  return !key.includes(' ');
}

const NO_STEMS: ReadonlyMap<string, string> = new Map();

/** One text's words and their stems, in order (stemmedWords). */
export interface StemmedWords {
  words: readonly string[];
  stems: readonly string[];
}

/**
 * A text's words and their stems, in order: each stem from `known` (stems worked out once for
 * common words), else from `memo` (kept for the rest of one conversation), else worked out.
 */
export function stemmedWords(text: string, memo = new Map<string, string>(), known: ReadonlyMap<string, string> = NO_STEMS): StemmedWords {
  const words = plainWords(text);
  const stems = words.map((w) => {
    let stem = known.get(w) ?? memo.get(w);
    if (stem === undefined) memo.set(w, (stem = stemmer(w)));
    return stem;
  });
  return { words, stems };
}

/** The stems of `words`, worked out once. */
export function stemsOf(words: readonly string[]): ReadonlyMap<string, string> {
  return new Map(words.map((w) => [w, stemmer(w)]));
}
