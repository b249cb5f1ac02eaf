import { resourceMetadataUrl, type ResourceName } from './resources';

/**
 * `WWW-Authenticate` challenges for bearer-protected resources: RFC 6750 §3 error attributes,
 * plus RFC 9728 §5.1 `resource_metadata`, which sends a client without a token to discovery.
 */

function quote(value: string): string {
  // RFC 9110 quoted-string: escape backslash and double quote.
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

export function bearerChallenge(options: {
  resource: ResourceName;
  error?: 'invalid_token' | 'insufficient_scope' | 'invalid_request';
  description?: string;
  scope?: string;
}): string {
  const params: string[] = [];
  if (options.error) params.push(`error=${quote(options.error)}`);
  if (options.description) params.push(`error_description=${quote(options.description)}`);
  if (options.scope) params.push(`scope=${quote(options.scope)}`);
  params.push(`resource_metadata=${quote(resourceMetadataUrl(options.resource))}`);
  return `Bearer ${params.join(', ')}`;
}
