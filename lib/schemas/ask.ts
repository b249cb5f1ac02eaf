import { z } from 'zod';

/** The longest question, in characters after trimming (search `q` allows 200; a question may be longer). */
export const QUESTION_MAX = 500;

const RANGE = `must be a string of 1 to ${QUESTION_MAX} characters`;

/** A question: trimmed, then 1 to 500 characters (a question may be longer than the 200 of search `q`). */
const question = z
  .string({ message: RANGE })
  .trim()
  .min(1, { message: `is required: ${RANGE}` })
  .max(QUESTION_MAX, { message: RANGE })
  .describe(`The question, 1 to ${QUESTION_MAX} characters after trimming.`);

/** `GET /ask?q=`. */
export const askQuery = z.object({ q: question });

/** `POST /ask` with `{"question": "..."}`. */
export const askRequest = z.object({ question });

export const askCitation = z.object({
  title: z.string().describe("The page's title."),
  section: z.string().nullable().describe("The section's heading; null for a page's introduction."),
  url: z.string().url().describe('The page on this service, with the section anchor.'),
  passage: z.string().max(300).describe('The passage the answer quotes, at most 300 characters.'),
});

export const askBody = z.object({
  question: z.string().describe('The question, trimmed.'),
  found: z.boolean().describe('False when no passage of the docs matched: the answer says so and cites nothing.'),
  answer: z.string().describe('Sentences of the cited passages; `[n]` points at `citations[n-1]`.'),
  citations: z.array(askCitation),
});
