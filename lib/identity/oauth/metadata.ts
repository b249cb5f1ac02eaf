import { agentRegistrationEnabled } from './agent-identity';
import { absoluteUrl } from '../../platform/http/responses';
import { issuer, OAUTH_PATHS, resourceUri, type ResourceName } from './resources';

export { OAUTH_PATHS };
import { SCOPES } from './scopes';

/**
 * Discovery documents: authorization server metadata (RFC 8414) and protected resource metadata
 * (RFC 9728). Pure: built from configuration only.
 */

export const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type TokenEndpointAuthMethod = (typeof AUTH_METHODS)[number];

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The grants /oauth/token answers: the JWT-bearer grant only while agent registration is on. */
export function supportedGrantTypes(): string[] {
  return agentRegistrationEnabled() ? ['authorization_code', JWT_BEARER_GRANT] : ['authorization_code'];
}

export function authorizationServerMetadata(options: { grantTypes: readonly string[] }) {
  return {
    issuer: issuer(),
    authorization_endpoint: absoluteUrl(OAUTH_PATHS.authorize),
    token_endpoint: absoluteUrl(OAUTH_PATHS.token),
    registration_endpoint: absoluteUrl(OAUTH_PATHS.register),
    jwks_uri: absoluteUrl(OAUTH_PATHS.jwks),
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...options.grantTypes],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    // RFC 9207: the authorization response carries `iss`, so a client can tell servers apart.
    authorization_response_iss_parameter_supported: true,
    // draft-ietf-oauth-client-id-metadata-document: an https URL may be a client_id.
    client_id_metadata_document_supported: true,
    service_documentation: absoluteUrl('/docs/authentication'),
  };
}

const RESOURCE_DOCS: Record<ResourceName, string> = { api: '/docs/account-api', mcp: '/docs/mcp-servers' };

export function protectedResourceMetadata(resource: ResourceName) {
  return {
    resource: resourceUri(resource),
    authorization_servers: [issuer()],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: absoluteUrl(RESOURCE_DOCS[resource]),
  };
}
