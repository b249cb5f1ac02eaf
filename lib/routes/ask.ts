import { defineRoute, json } from '../http/kernel';
import { ROUTES } from '../registry';
import { askBody } from '../schemas/ask';
import { ask } from './answer';

/**
 * `/ask` (content/docs/agents.md): `GET ?q=` and `POST {"question"}` answer alike from the docs'
 * passages, with citations; the answer is parsed through its schema, so no field leaks.
 */
export const askRoute = defineRoute(ROUTES['/ask'], {
  GET: ({ query }) => json(askBody.parse(ask(query.q))),
  POST: ({ body }) => json(askBody.parse(ask(body.question))),
});
