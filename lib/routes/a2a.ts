import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { agentCardJson, answerJsonRpc } from '../agents/a2a/jsonrpc';

/**
 * POST /a2a: the A2A agent, JSON-RPC binding (content/docs/agents.md). Other methods are the
 * kernel's 405 in the API error envelope, and so are a 429 and an oversized body (413): those
 * are HTTP answers, given before any JSON-RPC is read.
 */
export const a2aRoute = defineRoute(ROUTES['/a2a'], { POST: ({ request, services }) => answerJsonRpc(request, services) });

/** GET /.well-known/agent-card.json: the agent card, public and cacheable. */
export const agentCardRoute = defineRoute(ROUTES['/.well-known/agent-card.json'], {
  GET: async ({ services }) => json(await agentCardJson(services)),
});
