// Setup checks, once the server runs (from addresses of their own, 127.3.0.x).
import http from 'node:http';
import { addressOf, exchange } from './clients.mjs';

/**
 * The active placements of the keys' apps (each key's own, as bench-sdk.ts found them), the
 * policies the server announces, and checks that the minted token works and that addresses
 * count apart.
 */
export async function checkSetup(prepared) {
  const agent = (i) => new http.Agent({ keepAlive: false, localAddress: addressOf(3, i) });
  const apps = await exchange(agent(0), { path: '/api/v1/me/apps?placement_status=active', headers: { authorization: `Bearer ${prepared.token}` } });
  if (apps.status !== 200) throw new Error(`GET /api/v1/me/apps with the minted token answered ${apps.status ?? apps.error}: ${apps.body ?? ''}`);
  const placements = [...new Set(prepared.sdk.flatMap((s) => s.placements))];

  const validate = await exchange(agent(1), { path: '/functions/v1/validate-key', headers: { 'x-api-key': prepared.sdk[0].key } });
  if (validate.status !== 200) throw new Error(`GET /functions/v1/validate-key answered ${validate.status ?? validate.error}: ${validate.body ?? ''}`);
  const policies = parsePolicies(String(validate.headers['ratelimit-policy'] ?? ''));
  if (!policies.default || !policies.key) throw new Error(`unexpected RateLimit-Policy: ${validate.headers['ratelimit-policy']}`);

  // Two fresh addresses each get the whole budget: the server counts them apart, so binding works.
  const a = await exchange(agent(2), { path: '/api/v1/pricing' });
  const b = await exchange(agent(3), { path: '/api/v1/pricing' });
  const full = String(policies.default.q - 1);
  const apart = a.headers?.['x-ratelimit-remaining'] === full && b.headers?.['x-ratelimit-remaining'] === full;
  if (!apart) {
    throw new Error(
      `two loopback addresses did not get budgets of their own (remaining ${a.headers?.['x-ratelimit-remaining'] ?? a.error} and ${b.headers?.['x-ratelimit-remaining'] ?? b.error}, expected ${full}): is 127.0.0.0/8 routed to lo, and does the server see the peer address?`,
    );
  }
  return { placements, policies };
}

/** `"default";q=120;w=60, "key";q=6000;w=60` → { default: {q, w}, key: {q, w} }. */
function parsePolicies(header) {
  const out = {};
  for (const part of header.split(',')) {
    const m = /"([^"]+)";q=(\d+);w=(\d+)/.exec(part);
    if (m) out[m[1]] = { q: Number(m[2]), w: Number(m[3]) };
  }
  return out;
}
