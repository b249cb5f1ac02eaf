import { json, method, type RouteSpec } from '../http/kernel';
import { decodeCursor, paginate } from '../http/cursor';
import { absoluteUrl, badRequest } from '../http/responses';
import { operationsOf } from '../openapi/operations';
import { searchBody, searchQuery } from '../schemas/search';
import { searchPages } from './index';

/** GET /api/v1/search: public docs search, paged by cursors bound to the query and limit. */
export const searchRoute: RouteSpec = {
  name: 'search',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({
      query: searchQuery,
      cache: 'public, max-age=300',
      handler: async ({ query }) => {
        const binding = `search\n${query.q}\n${query.limit}`;
        const offset = query.cursor ? await decodeCursor(binding, query.cursor) : 0;
        const hits = searchPages(query.q);
        const { page, pagination } = await paginate(hits, offset, query.limit, binding);
        return json(
          searchBody.parse({
            query: query.q,
            count: hits.length,
            results: page.map((h) => ({ title: h.title, url: absoluteUrl(h.path), score: h.score, snippet: h.snippet })),
            pagination,
          }),
        );
      },
    }),
  },
};

export const searchOperations = operationsOf('/api/v1/search', searchRoute, {
  GET: {
    operationId: 'searchDocs',
    summary: 'Search the docs and product pages',
    tags: ['Public'],
    security: 'none',
    responses: { 200: { description: 'Matching pages, best first.', schema: searchBody }, 400: badRequest },
  },
});
