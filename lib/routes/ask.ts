import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { askBody } from '../schemas/ask';
import { ask } from '../docs/ask/answer';

/**
 * `/ask` (content/docs/agents.md): `GET ?q=` and `POST {"question"}` answer alike from the docs'
 * passages, with citations; the answer is parsed through its schema, so no field leaks.
 */
export const askRoute = defineRoute(ROUTES['/ask'], {
  GET: ({ query, services }) => json(askBody.parse(ask(query.q, services.caches.askAnswers))),
  POST: ({ body, services }) => json(askBody.parse(ask(body.question, services.caches.askAnswers))),
});
