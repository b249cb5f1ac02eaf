import { DEFAULT_SCOPES, SCOPES, type Scope } from '../../schemas/account';

export { DEFAULT_SCOPES, SCOPES, type Scope };

/** What each scope lets a client read, in the words the consent page uses (content/docs/scopes.md). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'profile:read': 'Your name, company, role and email address',
  'apps:read': 'Your apps and ad placements, with their impressions, clicks and revenue',
  'earnings:read': 'Your earnings totals and payout history',
  'api_keys:read': 'The names, environments and status of your API keys (masked, never the keys themselves)',
  'campaigns:read': 'Your ad campaigns, their creatives’ review status, their spend and your advertiser balance',
  'licenses:read': 'Your data licenses, their status and price, the deletion notices you have not acknowledged, and your data buyer balance',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * The `scope` parameter (RFC 6749 §3.3: space-delimited, case-sensitive). Omitted or empty means
 * the original four, DEFAULT_SCOPES (content/docs/scopes.md): a scope added since, such as
 * `campaigns:read` or `licenses:read`, is granted only when asked for by name. Any unknown scope
 * makes the whole request `invalid_scope`.
 */
export function parseScopes(value: string | null | undefined): { ok: true; scopes: Scope[] } | { ok: false; unknown: string[] } {
  const words = (value ?? '').split(' ').filter((w) => w !== '');
  if (words.length === 0) return { ok: true, scopes: [...DEFAULT_SCOPES] };
  const unknown = words.filter((w) => !isScope(w));
  if (unknown.length > 0) return { ok: false, unknown: [...new Set(unknown)] };
  // Canonical order, no duplicates: the token's `scope` reads the same whatever order was asked.
  return { ok: true, scopes: SCOPES.filter((s) => words.includes(s)) };
}

export function scopeString(scopes: readonly string[]): string {
  return scopes.join(' ');
}
