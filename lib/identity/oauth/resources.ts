import { absoluteUrl } from '../../platform/http/responses';
import { env } from '../../platform/env';

/**
 * The protected resources (RFC 8707 §2): the REST API and the MCP endpoint.
 * A token's `aud` names the ones it was issued for; each surface accepts only its own.
 */

import { RESOURCE_NAMES, type ResourceName } from '../../schemas/oauth';

export { RESOURCE_NAMES, type ResourceName };

const PATHS: Record<ResourceName, string> = { api: '/api/v1', mcp: '/mcp' };

export function resourceUri(name: ResourceName): string {
  return absoluteUrl(PATHS[name]);
}

/** RFC 9728 §3.1: the metadata of a resource sits at the well-known prefix plus the resource's path. */
export function resourceMetadataUrl(name: ResourceName): string {
  return absoluteUrl(`/.well-known/oauth-protected-resource${PATHS[name]}`);
}

export function issuer(): string {
  return env().PUBLIC_BASE_URL;
}

/**
 * The `resource` parameters of an authorization or token request. None: both resources, so a
 * client that knows nothing of RFC 8707 still gets a token that works on REST and MCP. Anything
 * else than our two URIs is `invalid_target` (RFC 8707 §2).
 */
export function parseResources(values: readonly string[]): { ok: true; resources: string[] } | { ok: false; unknown: string } {
  const known = RESOURCE_NAMES.map(resourceUri);
  if (values.length === 0) return { ok: true, resources: known };
  for (const v of values) if (!known.includes(v)) return { ok: false, unknown: v };
  return { ok: true, resources: known.filter((k) => values.includes(k)) };
}

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  jwks: '/.well-known/jwks.json',
} as const;
