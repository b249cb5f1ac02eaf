import { z } from 'zod';
import { cursorParam, intParam, pagination } from './common';

export const searchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, { message: 'is required: 1 to 200 characters' })
    .max(200, { message: 'must be at most 200 characters' })
    .describe('What to look for, 1 to 200 characters.'),
  limit: intParam(1, 20, 5).describe('Results per page, 1 to 20.'),
  cursor: cursorParam,
});
export type SearchQuery = z.output<typeof searchQuery>;

export const searchResult = z.object({
  title: z.string(),
  url: z.string().url(),
  score: z.number(),
  snippet: z.string().max(200).describe('Text around the matched terms, at most 200 characters.'),
});

export const searchBody = z.object({
  query: z.string(),
  count: z.number().int().describe('How many pages match in all.'),
  results: z.array(searchResult),
  pagination,
});
