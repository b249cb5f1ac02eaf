import { authenticate, requireScope, type Principal, type TokenCheck } from '../oauth/bearer';
import type { Credential } from './declaration';

/**
 * The credential step of the kernel: what each kind of credential in a declaration checks, and
 * what the handler is given for it. A new kind (a publishable app key, a console session) is a
 * new case here and in `PrincipalOf`, and every route that declares it gets the same checks.
 */

export type PrincipalOf<C extends Credential> = C extends { kind: 'bearer' }
  ? Principal
  : C extends { kind: 'optional-bearer' }
    ? Principal | null
    : undefined;

/** Throws the 401 or 403 of the credential (RFC 6750 §3.1); answers the caller's principal. */
export async function checkCredential(credential: Credential, request: { headers: Headers }, check: TokenCheck): Promise<Principal | null | undefined> {
  switch (credential.kind) {
    case 'none':
    case 'forwarded-bearer':
      return undefined;
    case 'optional-bearer':
      return authenticate(request, credential.resource, check, { required: false });
    case 'bearer': {
      const principal = await authenticate(request, credential.resource, check);
      if (credential.scope) requireScope(principal, credential.scope, credential.resource);
      return principal;
    }
  }
}
