import { agentRegistrationEnabled } from '../agent/identity';
import { json, method, type RouteSpec } from '../http/kernel';
import { authorizationServerMetadata, JWT_BEARER_GRANT, protectedResourceMetadata } from './metadata';
import type { ResourceName } from './resources';
import { requireOAuthSecrets } from './secrets';

/** The grants /oauth/token answers: the JWT-bearer grant only while agent registration is on. */
export function supportedGrantTypes(): string[] {
  return agentRegistrationEnabled() ? ['authorization_code', JWT_BEARER_GRANT] : ['authorization_code'];
}

const DISCOVERY_CACHE = 'public, max-age=300';

/** GET /.well-known/oauth-authorization-server (RFC 8414 §3). */
export const authorizationServerMetadataRoute: RouteSpec = {
  name: 'oauth-authorization-server-metadata',
  errors: 'oauth',
  cors: 'public',
  methods: {
    GET: method({ cache: DISCOVERY_CACHE, handler: () => json(authorizationServerMetadata({ grantTypes: supportedGrantTypes() })) }),
  },
};

/** GET /.well-known/oauth-protected-resource/{api/v1,mcp} (RFC 9728 §3). */
export function protectedResourceMetadataRoute(resource: ResourceName): RouteSpec {
  return {
    name: `oauth-protected-resource-${resource}`,
    errors: 'oauth',
    cors: 'public',
    methods: { GET: method({ cache: DISCOVERY_CACHE, handler: () => json(protectedResourceMetadata(resource)) }) },
  };
}

/** GET /.well-known/jwks.json: the public key that verifies our access tokens (RFC 7517). */
export const jwksRoute: RouteSpec = {
  name: 'oauth-jwks',
  errors: 'oauth',
  cors: 'public',
  methods: {
    GET: method({
      cache: DISCOVERY_CACHE,
      handler: async () => {
        const { publicJwk } = await requireOAuthSecrets();
        return json({ keys: [publicJwk] });
      },
    }),
  },
};
