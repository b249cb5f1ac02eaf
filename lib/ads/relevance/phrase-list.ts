import { z } from 'zod';
import { CAMPAIGN_PHRASES } from '../../schemas/advertising';
import { phraseKey, plainWords } from './text';

/**
 * Phrases typed one per line or separated by commas (context hints, excluded phrases, an app's excluded topics): trimmed,
 * inner spaces made one, without repeats (whatever their case), each at most 5 words and 60
 * characters, and none of common words alone ("the", "it"), which would match nothing
 * (./text.ts, phraseKey).
 */
export const phraseList = (what: string) =>
  z
    .string()
    .default('')
    .transform((v) => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (const raw of v.split(/[,\n]/)) {
        const phrase = raw.trim().replace(/\s+/g, ' ');
        if (phrase && !seen.has(phrase.toLowerCase())) out.push(phrase);
        seen.add(phrase.toLowerCase());
      }
      return out;
    })
    .refine((items) => items.length <= CAMPAIGN_PHRASES.max, `At most ${CAMPAIGN_PHRASES.max} ${what}.`)
    .refine(
      (items) => items.every((s) => s.length <= CAMPAIGN_PHRASES.maxLength),
      `Each of the ${what} takes at most ${CAMPAIGN_PHRASES.maxLength} characters.`,
    )
    .superRefine((items, ctx) => {
      for (const phrase of items) {
        if (plainWords(phrase).length > CAMPAIGN_PHRASES.maxWords)
          ctx.addIssue({ code: 'custom', message: `“${phrase}” is more than ${CAMPAIGN_PHRASES.maxWords} words: ${what} are short phrases.` });
        else if (phraseKey(phrase) === null)
          ctx.addIssue({ code: 'custom', message: `“${phrase}” is only common words, which match nothing: name the topic.` });
      }
    });
