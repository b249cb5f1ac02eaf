import { Lru } from '../../platform/cache/lru';
import type { Answer } from './answer';

/**
 * The answers already given (the docs do not change while the process runs; one cache per
 * instance, in its services). Apart from answer.ts, so that the services, which every page
 * imports, make it without importing the search index.
 */
export type AskAnswers = Lru<string, Answer>;

export function askAnswers(): AskAnswers {
  return new Lru('ask-answers', 500);
}
