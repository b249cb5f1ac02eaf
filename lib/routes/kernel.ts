import { createKernel, type Context as KernelContext } from '../platform/http/kernel';
import type { OperationDeclaration } from '../platform/http/declaration';
import { services, type Services } from '../services';
import type { Credential } from '../schemas/registry';
import { checkCredential } from './credentials';
import { bearsServerKey } from '../identity/keys/directory';

/**
 * The kernel of this service's routes: the process's services, and the credential checks of
 * lib/routes/credentials.ts. Every route module defines its routes with this `defineRoute`.
 */
export const defineRoute = createKernel({
  services,
  checkCredential: (credential, request, s) => checkCredential(credential as Credential, request, s),
  // An app's server asks for ads for many people from one address: its good server key draws on
  // its publisher's SDK budget alone (content/docs/rate-limits.md).
  countsByCredential: (credential, request) => (credential as Credential).kind === 'app-key' && bearsServerKey(request.headers),
  // What the surfaces read: tokens, JSON and form bodies, idempotency, SDK keys and consent proofs, MCP and A2A.
  corsRequestHeaders:
    'Authorization, Content-Type, Idempotency-Key, X-Api-Key, X-Consent-Proof, MCP-Protocol-Version, Mcp-Session-Id, A2A-Version, A2A-Extensions',
});

/** What a handler of this service is given. */
export type Context<O extends OperationDeclaration> = KernelContext<O, Services>;
