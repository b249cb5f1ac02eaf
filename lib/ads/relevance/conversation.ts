import { addFeatures } from './model';
import { phrasesOfStems, stemmedWords } from './text';

/**
 * A conversation as an app will send it with an ad request: at most 6 messages and 4,000
 * characters, the latest last. It is read here, in the server's memory, for the one
 * decision it came with, and never written anywhere: not to the database, a log or a report.
 */
export interface ContextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A conversation as the checks read it, once for every campaign. */
export interface ReadConversation {
  /** The user's messages in plain words (lower case, no accents or punctuation, one space between): what the safety patterns read. */
  userText: readonly string[];
  /** The words and word pairs of the user's messages, stemmed: what the safety model reads (./model.ts). */
  userFeatures: ReadonlySet<string>;
  /**
   * Every run of 1 to 5 words of the conversation, stemmed (lib/ads/relevance/text.ts,
   * phrasesOf), with the weight of the heaviest message it is in: a hint is one lookup here.
   */
  phrases: ReadonlyMap<string, number>;
}

/**
 * How much a hint counts by where it is found: the user's latest message says what they want
 * now; their earlier messages set the topic; the assistant's own words count least, since an
 * answer may mention what the user never asked about.
 */
export const MESSAGE_WEIGHTS = { latestUser: 1, earlierUser: 0.6, assistant: 0.3 } as const;

/** Reads each message once: its plain words, if the user's, and its phrases with their weight. */
export function readConversation(messages: readonly ContextMessage[]): ReadConversation {
  let latestUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') latestUser = i;
  });
  const userText: string[] = [];
  const userFeatures = new Set<string>();
  const phrases = new Map<string, number>();
  const memo = new Map<string, string>();
  messages.forEach((m, i) => {
    const read = stemmedWords(m.content, memo);
    if (m.role === 'user') {
      userText.push(` ${read.words.join(' ')} `);
      addFeatures(userFeatures, read);
    }
    const weight = m.role === 'assistant' ? MESSAGE_WEIGHTS.assistant : i === latestUser ? MESSAGE_WEIGHTS.latestUser : MESSAGE_WEIGHTS.earlierUser;
    for (const key of phrasesOfStems(read.stems)) if ((phrases.get(key) ?? 0) < weight) phrases.set(key, weight);
  });
  return { userText, userFeatures, phrases };
}
