import { jsonText, method, type JsonAnswer, type RouteSpec } from '../http/kernel';
import { askBody, askQuery, askRequest } from '../schemas/ask';
import { ask } from './index';

/** One answer, whichever way the question came; parsed through its schema so no field leaks. */
function answer(question: string): JsonAnswer {
  return jsonText(JSON.stringify(askBody.parse(ask(question))));
}

/**
 * `/ask` (DESIGN.md, "/ask"): `GET ?q=` and `POST {"question"}` answer alike from the docs'
 * passages, with citations. Public, rate limited like the other surfaces (spec, Limits).
 */
export const askRoute: RouteSpec = {
  name: 'ask',
  rateLimit: true,
  cors: 'public',
  methods: {
    GET: method({
      query: askQuery,
      // The answer depends only on the docs, which change with a deployment.
      cache: 'public, max-age=300',
      handler: ({ query }) => answer(query.q),
    }),
    POST: method({
      body: askRequest,
      handler: ({ body }) => answer(body.question),
    }),
  },
};
