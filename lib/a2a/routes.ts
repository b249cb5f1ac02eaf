import { json, method, type RouteSpec } from '../http/kernel';
import { agentCardJson, answerJsonRpc } from './jsonrpc';

/**
 * POST /a2a: the A2A agent, JSON-RPC binding (DESIGN.md, "/a2a"). Rate limited like the other
 * surfaces (spec, Limits). Other methods are the kernel's 405 in the API error envelope, and so
 * are a 429 and an oversized body (413): those are HTTP answers, before any JSON-RPC is read.
 */
export const a2aRoute: RouteSpec = {
  name: 'a2a',
  rateLimit: true,
  cors: 'public',
  methods: {
    POST: method({ handler: ({ request }) => answerJsonRpc(request) }),
  },
};

/** GET /.well-known/agent-card.json: the agent card, public and cacheable. */
export const agentCardRoute: RouteSpec = {
  name: 'a2a-agent-card',
  cors: 'public',
  methods: {
    GET: method({ cache: 'public, max-age=300', handler: async () => json(await agentCardJson()) }),
  },
};
