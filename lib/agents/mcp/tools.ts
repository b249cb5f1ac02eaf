import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What every tool of both MCP servers shares: read-only annotations and the shape of results. */

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** A body as `structuredContent`, and as text for clients that read only `content` (the JSON, unless given). */
export function structured(body: object, text: string = JSON.stringify(body)): CallToolResult {
  return { structuredContent: body as Record<string, unknown>, content: [{ type: 'text', text }] };
}

/** A failure of the call itself, as the tool's result (MCP: not a protocol error). */
export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
