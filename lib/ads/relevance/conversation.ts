import { phrasesOf, plainWords } from './text';

/**
 * A conversation as an app sends it with an ad request: at most 6 messages, the latest last
 * (lib/schemas/sdk.ts checks the limits). It is read here, in the server's memory, for the one
 * decision it came with, and never written anywhere: not to the database, a log or a report.
 */
export interface ContextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** One message as the checks read it. */
export interface ReadMessage {
  role: 'user' | 'assistant';
  /** How much a hint found here counts (MESSAGE_WEIGHTS). */
  weight: number;
  /** Its phrases of up to 5 words, stemmed (lib/ads/relevance/text.ts, phrasesOf): what hints are looked up in. */
  phrases: ReadonlySet<string>;
  /** Its words, lower case, without accents or punctuation, one space between: what the safety patterns read. */
  plain: string;
}

/**
 * How much a hint counts by where it is found: the user's latest message says what they want
 * now; their earlier messages set the topic; the assistant's own words count least, since an
 * answer may mention what the user never asked about.
 */
export const MESSAGE_WEIGHTS = { latestUser: 1, earlierUser: 0.6, assistant: 0.3 } as const;

/** Each message with its weight, words and plain text. */
export function readConversation(messages: readonly ContextMessage[]): ReadMessage[] {
  let latestUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') latestUser = i;
  });
  return messages.map((m, i) => ({
    role: m.role,
    weight: m.role === 'assistant' ? MESSAGE_WEIGHTS.assistant : i === latestUser ? MESSAGE_WEIGHTS.latestUser : MESSAGE_WEIGHTS.earlierUser,
    phrases: phrasesOf(m.content),
    plain: ` ${plainWords(m.content).join(' ')} `,
  }));
}
