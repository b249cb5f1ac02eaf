import { z } from 'zod';

/** The protected resources (RFC 8707 §2): the REST API and the MCP endpoint (lib/identity/oauth/resources.ts). */
export type ResourceName = 'api' | 'mcp';
export const RESOURCE_NAMES: readonly ResourceName[] = ['api', 'mcp'];

/** The longest authorization request the consent form carries back, in characters. */
export const MAX_AUTHORIZATION_REQUEST = 8 * 1024;

/** `POST /oauth/authorize`: the publisher's decision on the consent page. */
export const consentDecisionForm = z.object({
  request: z.string().max(MAX_AUTHORIZATION_REQUEST),
  csrf_token: z.string().max(200).optional(),
  decision: z.enum(['approve', 'deny']),
});

/**
 * `POST /oauth/token`: any form parameters; the grant decides which it needs (RFC 6749 §4.1.3,
 * RFC 7523 §2.1), and answers their absence with its own `invalid_request`.
 */
export const tokenForm = z.record(z.string(), z.string());

/** `POST /oauth/register`: validated by the registration policy itself (RFC 7591 §2, §3.2.2). */
export const registrationRequest = z.unknown();
