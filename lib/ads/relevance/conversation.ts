import { stemmedWords, stemsOf, type StemmedWords } from './text';
import vocabulary from './vocabulary.json';

/**
 * A conversation as an app will send it with an ad request: at most 6 messages and 4,000
 * characters, the latest last. It is read here, in the server's memory, for the one
 * decision it came with, and never written anywhere: not to the database, a log or a report.
 */
export interface ContextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** One message as the relevance check reads it: its words' stems, in order, and how much a hint found in it counts. */
export interface ReadMessage {
  stems: readonly string[];
  weight: number;
}

/** A conversation as the checks read it, once for every campaign. */
export interface ReadConversation {
  /** The user's messages in plain words (lower case, no accents or punctuation, one space between): what the safety patterns read. */
  userText: readonly string[];
  /** The user's messages' words and their stems: what the safety model reads (./model.ts, ModelScorer). */
  userWords: readonly StemmedWords[];
  /** Every message, stemmed, with its weight: where hints are looked for (./score.ts, PhraseIndex). */
  messages: readonly ReadMessage[];
}

/**
 * How much a hint counts by where it is found: the user's latest message says what they want
 * now; their earlier messages set the topic; the assistant's own words count least, since an
 * answer may mention what the user never asked about.
 */
export const MESSAGE_WEIGHTS = { latestUser: 1, earlierUser: 0.6, assistant: 0.3 } as const;

/** The stems of the words the training conversations use (./vocabulary.json), worked out on first use. */
let known: ReadonlyMap<string, string> | undefined;

/** Reads each message once: its plain words, if the user's, and its stems with their weight. */
export function readConversation(messages: readonly ContextMessage[]): ReadConversation {
  let latestUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') latestUser = i;
  });
  const userText: string[] = [];
  const userWords: StemmedWords[] = [];
  const read: ReadMessage[] = [];
  const memo = new Map<string, string>();
  known ??= stemsOf(vocabulary);
  messages.forEach((m, i) => {
    const words = stemmedWords(m.content, memo, known);
    if (m.role === 'user') {
      userText.push(` ${words.words.join(' ')} `);
      userWords.push(words);
    }
    const weight = m.role === 'assistant' ? MESSAGE_WEIGHTS.assistant : i === latestUser ? MESSAGE_WEIGHTS.latestUser : MESSAGE_WEIGHTS.earlierUser;
    read.push({ stems: words.stems, weight });
  });
  return { userText, userWords, messages: read };
}
