import { authenticate, requireScope, type Principal, type TokenCheck } from '../oauth/bearer';
import { authenticateApiKey, type AppPrincipal, type KeyCheck } from '../sdk/keys';
import type { Credential } from './declaration';

/**
 * The credential step of the kernel: what each kind of credential in a declaration checks, and
 * what the handler is given for it. A new kind (a console session, say) is a new case here and
 * in `PrincipalOf`, and every route that declares it gets the same checks.
 */

export type PrincipalOf<C extends Credential> = C extends { kind: 'bearer' }
  ? Principal
  : C extends { kind: 'optional-bearer' }
    ? Principal | null
    : C extends { kind: 'api-key' }
      ? AppPrincipal
      : C extends { kind: 'optional-api-key' }
        ? AppPrincipal | null
        : undefined;

/** What the checks need from the request's services: the token key and the clock, the database for SDK keys. */
export type CredentialCheck = TokenCheck & KeyCheck;

/** Throws the 401, 403 or 503 of the credential; answers the caller's principal. */
export async function checkCredential(
  credential: Credential,
  request: { headers: Headers },
  services: CredentialCheck,
): Promise<Principal | AppPrincipal | null | undefined> {
  switch (credential.kind) {
    case 'none':
    case 'forwarded-bearer':
      return undefined;
    case 'optional-bearer':
      return authenticate(request, credential.resource, services, { required: false });
    case 'bearer': {
      // RFC 6750 §3.1: 401 or 403 with a challenge.
      const principal = await authenticate(request, credential.resource, services);
      if (credential.scope) requireScope(principal, credential.scope, credential.resource);
      return principal;
    }
    case 'api-key':
      return authenticateApiKey(request, services);
    case 'optional-api-key':
      return request.headers.has('x-api-key') ? authenticateApiKey(request, services) : null;
  }
}
