// What the clients send: the mix of requests real clients make, by weight, and the request a
// client sends for each kind.
import { randomUUID } from 'node:crypto';

/**
 * The mix, by weight (per 100 requests). SDK share 44%: `validate-key`, `ads`, `events`.
 * `events` sends the impression (or click) of the client's last ad; a client with no ad to report
 * asks for one instead, so the SDK's share holds.
 */
export const MIX = [
  { kind: 'pricing', weight: 14 },
  { kind: 'search', weight: 14 },
  { kind: 'index', weight: 6 },
  { kind: 'validate-key', weight: 4, sdk: true },
  { kind: 'ads', weight: 24, sdk: true },
  { kind: 'events', weight: 16, sdk: true },
  { kind: 'me (sandbox)', weight: 8 },
  { kind: 'me/apps (token)', weight: 10 },
  { kind: 'me/earnings (token)', weight: 4 },
];
const MIX_TOTAL = MIX.reduce((s, m) => s + m.weight, 0);
export const SDK_SHARE = MIX.filter((m) => m.sdk).reduce((s, m) => s + m.weight, 0) / MIX_TOTAL;
const SEARCH_WORDS = [
  'payout',
  'rate limit',
  'sdk',
  'oauth',
  'consent',
  'placement',
  'impression',
  'pricing',
  'token',
  'mcp',
  'earnings',
  'api key',
  'viewability',
  'webhook',
  'batch',
  'scopes',
  'click',
  'sandbox',
  'video',
  'revenue share',
];

/** What a client with state `c` sends for `kind`. */
export function requestFor(kind, c, setup) {
  switch (kind) {
    case 'pricing':
      return { path: '/api/v1/pricing' };
    case 'search': {
      const word = Math.random() < 0.1 ? `${pick(SEARCH_WORDS)} ${randomUUID().slice(0, 8)}` : pick(SEARCH_WORDS);
      return { path: `/api/v1/search?q=${encodeURIComponent(word)}` };
    }
    case 'index':
      return { path: '/api/v1' };
    case 'validate-key':
      return { path: '/functions/v1/validate-key', headers: { 'x-api-key': c.key } };
    case 'ads': {
      const placement = c.placements[c.nextPlacement++ % c.placements.length];
      return { path: `/functions/v1/ads?placement_id=${placement}&session_id=${c.session}`, headers: { 'x-api-key': c.key, 'user-agent': c.userAgent } };
    }
    case 'events': {
      const ad = c.ad;
      // An impression counts no sooner than its seconds in view after its ad (2.5 s claimed here).
      const viewed = ad && performance.now() - ad.servedAt >= 2600;
      if (!ad || !viewed || (ad.impressed && (ad.clicked || Math.random() >= 0.1))) return requestFor('ads', c, setup);
      const type = ad.impressed ? 'click' : 'impression';
      if (type === 'click') ad.clicked = true;
      else ad.impressed = true;
      const event = {
        id: `${ad.decision}-${type}`,
        type,
        token: ad.token,
        ...(type === 'impression' ? { viewability: { visible_share: 1, visible_seconds: 2.5, area_px: 300 * 250 } } : {}),
      };
      return {
        method: 'POST',
        path: '/functions/v1/events',
        headers: { 'x-api-key': c.key, 'user-agent': c.userAgent },
        body: JSON.stringify({ events: [event] }),
      };
    }
    case 'me (sandbox)':
      return { path: '/api/v1/me', headers: { authorization: 'Bearer svc_sandbox' } };
    case 'me/apps (token)':
      return { path: '/api/v1/me/apps', headers: { authorization: `Bearer ${setup.token}` } };
    case 'me/earnings (token)':
      return { path: '/api/v1/me/earnings', headers: { authorization: `Bearer ${setup.token}` } };
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
export function pickKind() {
  let r = Math.random() * MIX_TOTAL;
  for (const m of MIX) {
    r -= m.weight;
    if (r < 0) return m.kind;
  }
  return MIX.at(-1).kind;
}
