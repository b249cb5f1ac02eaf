import { z } from 'zod';
import { cursorParam, intParam, pagination } from './common';

export const pagesQuery = z.object({
  limit: intParam(1, 100, 50).describe('Pages per page of results, 1 to 100.'),
  cursor: cursorParam,
});

export const pageItem = z.object({
  path: z.string(),
  url: z.string().url(),
  title: z.string(),
  description: z.string(),
  markdown_url: z.string().url().describe("The page's markdown twin."),
});

export const pagesBody = z.object({
  count: z.number().int().describe('Items on this page.'),
  total: z.number().int().describe('Public pages in all.'),
  pages: z.array(pageItem),
  pagination,
});
