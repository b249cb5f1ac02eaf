import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { readText } from '../../platform/http/input';

/**
 * One MCP POST over Streamable HTTP, stateless: a new server and transport for each request,
 * JSON answers instead of an SSE stream, nothing kept afterwards, so any instance can answer any
 * request (ARCHITECTURE.md, Running beyond one machine).
 * The SDK's transport speaks the protocol (Accept and Content-Type checks, parse errors,
 * JSON-RPC); this module only reads the body once, within our size limit, so a route can look
 * at the messages first (step-up authorization, batch cost).
 */

export interface JsonRpcRequestLike {
  method: string;
  params?: { name?: unknown };
}

/** The JSON-RPC requests in a parsed body (one message or a batch); anything else is skipped. */
export function requestsIn(body: unknown): JsonRpcRequestLike[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter(
    (m): m is JsonRpcRequestLike => typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string' && 'id' in m,
  );
}

export interface McpExchange {
  /** The parsed body, or undefined when it is not JSON (the transport answers the parse error). */
  body: unknown;
  /** Runs the exchange on a fresh server. */
  answer(server: McpServer): Promise<Response>;
}

export async function readMcpRequest(request: Request): Promise<McpExchange> {
  const text = await readText(request);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // The body stream is spent: the transport gets the text back, or the parsed value.
  const replay = new Request(request.url, { method: 'POST', headers: request.headers, body: text });
  return {
    body,
    async answer(server) {
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(replay, body === undefined ? undefined : { parsedBody: body });
      } finally {
        // JSON mode has answered every request by now: nothing is left to stream.
        await server.close();
      }
    },
  };
}
