import type { CheckedCredential } from '../platform/http/kernel';
import { authenticate, requireScope, type Principal, type TokenCheck } from '../identity/oauth/bearer';
import type { Credential } from '../schemas/registry';
import { authenticateApiKey, bearsServerKey, type AppPrincipal, type KeyCheck } from '../identity/keys/directory';
import type { RateLimiter } from '../platform/http/rate-limit';
import { authenticateConversionKey, type ConversionPrincipal } from '../ads/conversions/record';

/**
 * The credential step of the kernel for each kind of credential a route may declare
 * (`Credential`, lib/schemas/registry.ts): what it checks and what the handler is given.
 */

declare module '../platform/http/kernel' {
  interface Principals {
    none: undefined;
    bearer: Principal;
    'optional-bearer': Principal | null;
    'forwarded-bearer': undefined;
    'api-key': AppPrincipal;
    'app-key': AppPrincipal;
    'optional-api-key': AppPrincipal | null;
    'conversion-key': ConversionPrincipal;
  }
}

/** What the checks need from the request's services: the token key and the clock, the database for SDK keys, the keys' budget. */
export type CredentialServices = TokenCheck & KeyCheck & { readonly keyRateLimiter: RateLimiter };

const KEY_OVER_BUDGET =
  "The requests made with this publisher's API keys are over their budget, which all of the publisher's keys share: wait for the number of seconds in Retry-After, then retry.";

/** Throws the 401, 403 or 503 of the credential; answers the caller's principal (and an SDK key's budget). */
export async function checkCredential(credential: Credential, request: { headers: Headers }, services: CredentialServices): Promise<CheckedCredential> {
  switch (credential.kind) {
    case 'none':
    case 'forwarded-bearer':
      return { principal: undefined };
    case 'optional-bearer':
      return { principal: await authenticate(request, credential.resource, services, { required: false }) };
    case 'bearer': {
      // RFC 6750 §3.1: 401 or 403 with a challenge.
      const principal = await authenticate(request, credential.resource, services);
      if (credential.scope) requireScope(principal, credential.scope, credential.resource);
      return { principal };
    }
    case 'api-key':
      return withKeyBudget(await authenticateApiKey(request, services), services);
    case 'app-key':
      return withKeyBudget(await authenticateApiKey(request, services, true), services);
    case 'optional-api-key':
      // A server key sent here is refused (it names where server keys go), not ignored.
      return request.headers.has('x-api-key') || bearsServerKey(request.headers)
        ? withKeyBudget(await authenticateApiKey(request, services), services)
        : { principal: null };
    case 'conversion-key':
      return { principal: await authenticateConversionKey(request, services) };
  }
}

/**
 * The SDK budget a key draws on is its publisher's, one for all their keys and apps (the policy
 * `"key"` of content/docs/rate-limits.md): a publisher who mints more keys gets no more requests.
 */
function withKeyBudget(app: AppPrincipal, services: CredentialServices): CheckedCredential {
  return { principal: app, budget: { limiter: services.keyRateLimiter, key: `publisher:${app.userId}`, refusal: KEY_OVER_BUDGET } };
}
