import { decodeCursor, paginationAt } from '../platform/http/cursor';
import { jsonText } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { searchBody } from '../schemas/search';
import { resultOf, searchPages } from '../docs/search/engine';

/** GET /api/v1/search: public docs search, paged by cursors bound to the query and limit. */
export const searchRoute = defineRoute(ROUTES['/api/v1/search'], {
  GET: async ({ query, services }) => {
    const key = await services.cursorKey();
    const binding = `search\n${query.q}\n${query.limit}`;
    const offset = query.cursor ? decodeCursor(key, binding, query.cursor) : 0;
    const id = `${binding}\n${offset}`;
    const answered = services.caches.searchPages;
    const known = answered.get(id);
    if (known && known.key === key) return jsonText(known.text);
    const hits = searchPages(query.q);
    const slice = hits.slice(offset, offset + query.limit);
    const results = JSON.stringify(searchBody.shape.results.parse(slice.map(resultOf)));
    const pagination = paginationAt(key, binding, offset + slice.length, hits.length, query.limit);
    const text = `{"query":${JSON.stringify(query.q)},"count":${hits.length},"results":${results},"pagination":${JSON.stringify(pagination)}}`;
    answered.set(id, { key, text });
    return jsonText(text);
  },
});
