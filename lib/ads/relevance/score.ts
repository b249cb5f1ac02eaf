import type { ReadConversation } from './conversation';
import { isOneWord, phraseKey } from './text';

/**
 * How well a campaign fits a conversation: its advertiser's context hints (short phrases where
 * its ads fit) looked for in each message, and its excluded phrases, which keep it out.
 *
 * A hint is found in a message when its words are there, in order and next to each other, each
 * word compared by its stem (lib/ads/relevance/text.ts): "meeting notes" is found in "my meeting
 * notes are a mess", "where to stay" in "where should we stay" is not. It counts the weight of the
 * heaviest message it is found in (MESSAGE_WEIGHTS in ./conversation.ts: 1 in the user's latest
 * message, 0.6 in an earlier one of theirs, 0.3 in an answer of the assistant) times its strength:
 * 0.7 for a phrase of two words or more, 0.45 for a single word, which says less ("hosting" is
 * also what a country does for the Olympics). Each hint found takes away part of what is left to 1:
 *
 *     relevance = 1 − Π (1 − strength × weight), over the hints found
 *
 * so one phrase in the latest message gives 0.7, a single word there 0.45, two phrases 0.91, a
 * phrase seen only in an earlier message 0.42, only in the assistant's words 0.21; nothing found
 * gives 0. The answer names the hints found, as the advertiser wrote them: that is the whole
 * explanation of the figure. An excluded phrase found anywhere in the conversation makes the
 * relevance 0, whatever was found.
 */

export const HINT_STRENGTH = { phrase: 0.7, word: 0.45 } as const;

/** A phrase as written, and as it is looked up. */
export interface Phrase {
  text: string;
  key: string;
}

/** A campaign's phrases, read once for many conversations. */
export interface CampaignPhrases {
  hints: readonly Phrase[];
  excluded: readonly Phrase[];
}

export interface Fit {
  /** 0 to 1, three decimals. */
  relevance: number;
  /** The hints found, as written, those that count most first. */
  matched: string[];
  /** The first excluded phrase found, if any (then relevance is 0). */
  excludedBy: string | null;
}

/** Phrases as they are looked up; those that cannot match anything (common words alone) are left out. */
export function phrases(list: readonly string[]): Phrase[] {
  const out: Phrase[] = [];
  const seen = new Set<string>();
  for (const text of list) {
    const key = phraseKey(text);
    // "pan" and "pans" are one word once stemmed: found, they count once.
    if (key !== null && !seen.has(key)) out.push({ text, key });
    if (key !== null) seen.add(key);
  }
  return out;
}

/** Reads a campaign's hints and excluded phrases once, for many conversations. */
export function campaignPhrases(hints: readonly string[], excluded: readonly string[]): CampaignPhrases {
  return { hints: phrases(hints), excluded: phrases(excluded) };
}

/**
 * Phrases to look for in conversations, each under the stem of its first word: a message is read
 * once, word by word, and only where a word begins some phrase are the runs of words after it
 * joined and looked up (at most as many words as the longest phrase it begins). Reading a long
 * conversation against many campaigns' hints costs about what reading it alone does.
 */
export class PhraseIndex {
  private readonly keys = new Set<string>();
  /** Each first word's longest phrase, in words. */
  private readonly longest = new Map<string, number>();

  add(key: string): void {
    if (this.keys.has(key)) return;
    this.keys.add(key);
    const words = key.split(' ');
    this.longest.set(words[0]!, Math.max(this.longest.get(words[0]!) ?? 0, words.length));
  }

  /** Each phrase of the index found in the conversation, with the weight of the heaviest message it is in. */
  find(conversation: ReadConversation): Map<string, number> {
    const found = new Map<string, number>();
    for (const { stems, weight } of conversation.messages) {
      for (let i = 0; i < stems.length; i++) {
        const longest = this.longest.get(stems[i]!);
        if (longest === undefined) continue;
        let key = stems[i]!;
        for (let n = 0; ;) {
          if (this.keys.has(key) && (found.get(key) ?? 0) < weight) found.set(key, weight);
          if (++n === longest || i + n === stems.length) break;
          key = `${key} ${stems[i + n]!}`;
        }
      }
    }
    return found;
  }
}

/** An index of these phrases alone. */
export function indexOf(...lists: readonly (readonly Phrase[])[]): PhraseIndex {
  const index = new PhraseIndex();
  for (const list of lists) for (const p of list) index.add(p.key);
  return index;
}

/** How well `campaign` fits `conversation` (module comment). */
export function fit(conversation: ReadConversation, campaign: CampaignPhrases): Fit {
  return fitFound(indexOf(campaign.hints, campaign.excluded).find(conversation), campaign);
}

/** How well `campaign` fits a conversation in which `found` are the phrases found, each with its weight (PhraseIndex.find). */
export function fitFound(found: ReadonlyMap<string, number>, campaign: CampaignPhrases): Fit {
  for (const phrase of campaign.excluded) {
    if (found.has(phrase.key)) return { relevance: 0, matched: [], excludedBy: phrase.text };
  }
  const matched: { text: string; counts: number }[] = [];
  for (const hint of campaign.hints) {
    const weight = found.get(hint.key) ?? 0;
    if (weight > 0) matched.push({ text: hint.text, counts: weight * (isOneWord(hint.key) ? HINT_STRENGTH.word : HINT_STRENGTH.phrase) });
  }
  let missing = 1;
  for (const f of matched) missing *= 1 - f.counts;
  matched.sort((a, b) => b.counts - a.counts);
  return { relevance: Math.round((1 - missing) * 1000) / 1000, matched: matched.map((f) => f.text), excludedBy: null };
}
