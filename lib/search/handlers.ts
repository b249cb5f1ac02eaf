import { Lru } from '../cache/lru';
import { defineRoute, jsonText } from '../http/kernel';
import { decodeCursor, paginationAt } from '../http/cursor';
import { ROUTES } from '../registry';
import { searchBody } from '../schemas/search';
import { resultOf, searchPages } from './engine';

/**
 * Result pages already given, by query, limit and offset, with their `results` serialised. The
 * index does not change while the process runs, so the same request always finds the same
 * pages; keeping the last 500 spares the search, the snippets and their serialisation.
 */
const answered = new Lru<string, { count: number; end: number; results: string }>('search-pages', 500);

/** GET /api/v1/search: public docs search, paged by cursors bound to the query and limit. */
export const searchRoute = defineRoute(ROUTES['/api/v1/search'], {
  GET: async ({ query }) => {
    const binding = `search\n${query.q}\n${query.limit}`;
    const offset = query.cursor ? await decodeCursor(binding, query.cursor) : 0;
    const key = `${binding}\n${offset}`;
    let page = answered.get(key);
    if (page === undefined) {
      const hits = searchPages(query.q);
      const slice = hits.slice(offset, offset + query.limit);
      page = { count: hits.length, end: offset + slice.length, results: JSON.stringify(searchBody.shape.results.parse(slice.map(resultOf))) };
      answered.set(key, page);
    }
    const pagination = await paginationAt(binding, page.end, page.count, query.limit);
    return jsonText(`{"query":${JSON.stringify(query.q)},"count":${page.count},"results":${page.results},"pagination":${JSON.stringify(pagination)}}`);
  },
});
