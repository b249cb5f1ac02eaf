import { Lru } from '../cache/lru';
import { jsonText, method, type JsonAnswer, type RouteSpec } from '../http/kernel';
import { cursorKeyNow, decodeCursor, paginationAt } from '../http/cursor';
import { badRequest } from '../http/responses';
import { operationsOf } from '../openapi/operations';
import { searchBody, searchQuery, type SearchQuery } from '../schemas/search';
import { resultOf, searchPages } from './index';

/**
 * Results already given, by query, limit and offset. The index does not change while the process
 * runs, so the same request always finds the same pages; keeping the last 500 spares the search,
 * the snippets and their serialisation (a third of the route's cost in `npm run bench`).
 */
interface AnsweredPage {
  count: number;
  end: number;
  /** The `results` array, serialised. */
  results: string;
  /** A first page's whole answer as last sent, and the key its cursor was signed with. */
  sent?: { key: Buffer | undefined; text: string };
}
const answered = new Lru<string, AnsweredPage>(500);
const pageKey = (binding: string, offset: number) => `${binding}\n${offset}`;

async function answer(binding: string, query: SearchQuery): Promise<JsonAnswer> {
  const offset = query.cursor ? await decodeCursor(binding, query.cursor) : 0;
  const key = pageKey(binding, offset);
  let page = answered.get(key);
  if (page === undefined) {
    const hits = searchPages(query.q);
    const slice = hits.slice(offset, offset + query.limit);
    const results = slice.map(resultOf);
    page = { count: hits.length, end: offset + slice.length, results: JSON.stringify(searchBody.shape.results.parse(results)) };
    answered.set(key, page);
  }
  const pagination = await paginationAt(binding, page.end, page.count, query.limit);
  const text = `{"query":${JSON.stringify(query.q)},"count":${page.count},"results":${page.results},"pagination":${JSON.stringify(pagination)}}`;
  // A first page is kept with the key its cursor was signed with (loaded by now: paginationAt
  // waited for it), for the handler to send again; only first pages are looked up that way.
  if (offset === 0) page.sent = { key: cursorKeyNow(), text };
  return jsonText(text);
}

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
      handler: ({ query }) => {
        const binding = `search\n${query.q}\n${query.limit}`;
        // A first page already answered, under the key in force: nothing to compute or wait for.
        if (query.cursor === undefined) {
          const sent = answered.get(pageKey(binding, 0))?.sent;
          if (sent && sent.key === cursorKeyNow()) return jsonText(sent.text);
        }
        return answer(binding, query);
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
