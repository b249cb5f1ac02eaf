// The SDK endpoints' load: what each request sends (an app's key; for events, bodies of
// impressions signed as the server signs its decision tokens), and for events the check afterwards
// that the database kept every answered event exactly once.
import { createHmac } from 'node:crypto';
import postgres from 'postgres';
import { BENCH_CONVERSATION } from './conversation.mjs';

const EVENTS_PER_REQUEST = 50;

/** What one SDK endpoint sends, and for events, how to check afterwards that each was kept once. */
export function sdkLoadFor(kind, prepared) {
  const headers = { 'x-api-key': prepared.key, 'user-agent': prepared.userAgent ?? 'monetize-bench' };
  if (kind === 'ads') {
    // Each request from a browser of its own, as a real market's are. The frequency cap counts by
    // network, and every request here comes from 127.0.0.1: the bench's servers turn it off
    // (SDK_NETWORK_FREQUENCY_FACTOR=0, scripts/bench/servers.mjs), so that the bench measures
    // serving ads, not answering 204.
    let client = 0;
    return {
      headers,
      path: `/functions/v1/ads?placement_id=${prepared.placementId}`,
      request: { setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'user-agent': `monetize-bench/${++client}` } }) },
    };
  }
  if (kind === 'ads-context') {
    // As `ads`, with a conversation of nearly 4,000 characters (./conversation.mjs) in a POST.
    let client = 0;
    const body = JSON.stringify({ placement_id: prepared.placementId, context: { messages: BENCH_CONVERSATION } });
    return {
      headers: { ...headers, 'content-type': 'application/json' },
      path: '/functions/v1/ads',
      request: {
        method: 'POST',
        body,
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'user-agent': `monetize-bench/${++client}` } }),
      },
    };
  }
  if (kind === 'ads-server') {
    // As `ads-context`, from an app's server: its server key as a bearer, and each request naming
    // the end user's client, a browser and an address of its own (198.18.0.0/15, the range set
    // aside for benchmarks), as a server asking for its many users does.
    let client = 0;
    const conversation = JSON.stringify({ messages: BENCH_CONVERSATION });
    const head = `{"placement_id":${JSON.stringify(prepared.placementId)},"context":${conversation},"client":{"ip":"198.`;
    return {
      headers: { authorization: `Bearer ${prepared.serverKey}`, 'user-agent': 'monetize-bench-server', 'content-type': 'application/json' },
      path: '/functions/v1/ads',
      request: {
        method: 'POST',
        setupRequest: (req) => {
          const n = ++client;
          return { ...req, body: `${head}${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}","user_agent":"monetize-bench/${n}"}}` };
        },
      },
    };
  }
  if (kind === 'conversions') {
    // An advertiser's server reporting conversions (issue 44): its conversions key, each request a
    // new event id, for the clicked decisions scripts/bench-sdk.ts made, their click ids signed as
    // the server signs them (lib/ads/conversions/click-id.ts). A click counts five names at most:
    // past them, a conversion is kept as invalid (`too_many_for_click`), a write all the same.
    const clickKey = createHmac('sha256', Buffer.from(prepared.secret, 'base64url')).update('click ids').digest();
    const clickId = (i) => {
      const d = `${prepared.idPrefix}-7000-9000-${i.toString(16).padStart(12, '0')}`;
      return `${d}.${createHmac('sha256', clickKey).update(`mclid.v1.${d}`).digest('base64url').slice(0, 22)}`;
    };
    let sent = 0;
    const occurredAt = new Date().toISOString();
    return {
      headers: { authorization: `Bearer ${prepared.conversionKey}`, 'user-agent': 'monetize-bench-server', 'content-type': 'application/json' },
      path: '/functions/v1/conversions',
      request: {
        method: 'POST',
        setupRequest: (req) => {
          const n = sent++;
          const click = n % prepared.conversionClicks;
          return {
            ...req,
            body: JSON.stringify({
              event_id: `bench-conv-${n}`,
              click_id: clickId(click),
              name: `step-${Math.floor(n / prepared.conversionClicks)}`,
              value_usd: 19.99,
              occurred_at: occurredAt,
            }),
          };
        },
      },
    };
  }
  // Decision tokens as the server signs them (lib/ads/serving/tokens.ts), for the decisions scripts/bench-sdk.ts made.
  const secret = Buffer.from(prepared.secret, 'base64url');
  const expiresAt = Math.floor(Date.now() / 1000) + 6 * 3600;
  let next = 0;
  let answered = 0;
  // Before the decisions had a time in their ids, the bench's began with zeros.
  const decision = (i) => `${prepared.idPrefix ?? '00000000-0000'}-7000-8000-${i.toString(16).padStart(12, '0')}`;
  const token = (d) =>
    `${d}.${prepared.appId}.${expiresAt}.${createHmac('sha256', secret).update(`v1.${d}.${prepared.appId}.${expiresAt}`).digest('base64url')}`;
  const viewability = { visible_share: 1, visible_seconds: 1.5 };
  const body = () => {
    if (next + EVENTS_PER_REQUEST > prepared.decisions) throw new Error('the bench used up its decisions: raise BENCH_SDK_DECISIONS');
    const events = [];
    for (let k = 0; k < EVENTS_PER_REQUEST; k++, next++) {
      events.push({ id: `bench-${next}`, type: 'impression', token: token(decision(next)), viewability });
    }
    return JSON.stringify({ events });
  };
  /** Bodies made ahead; `next` counts every event made, sent or not. */
  const ready = [];
  return {
    headers: { ...headers, 'content-type': 'application/json' },
    path: '/functions/v1/events',
    request: {
      method: 'POST',
      /** Up to 600 requests' bodies per second of the slice to come (a 2-core machine serves far fewer). */
      refill(seconds) {
        while (ready.length < 600 * seconds) ready.push(body());
      },
      makeBody() {
        return ready.shift() ?? body();
      },
      onResponse(status) {
        if (status === 200) answered++;
      },
    },
    /** Every event of a 200 answer recorded, and each exactly once. */
    async verify(databaseUrl) {
      // The roll-up and the last requests settle first.
      await new Promise((r) => setTimeout(r, 1000));
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        // A billable impression is kept on its decision (the decision is the dedupe): count them
        // there, and any the server judged invalid in ad_events.
        const [row] = await sql.unsafe(
          `select count(*)::int as events, count(distinct impression_event_id)::int as ids, count(distinct id)::int as decisions,
                  count(*)::int as billable,
                  (select count(*)::int from public.ad_events where event_id like 'bench-%') as invalid
           from public.ad_decisions where impression_event_id like 'bench-%'`,
        );
        // Requests still in flight when a slice ended were not counted as answered, yet the server
        // may have recorded them: between what was answered and what was sent.
        const expected = answered * EVENTS_PER_REQUEST;
        const once = row.ids === row.events && row.decisions === row.events && row.invalid === 0;
        const ok = once && row.events >= expected && row.events <= next - ready.length * EVENTS_PER_REQUEST;
        return {
          ok,
          sent: next,
          answered200: answered,
          ...row,
          line: `${next - ready.length * EVENTS_PER_REQUEST} events sent, ${expected} of them answered 200; the database holds ${row.events} billable impressions, ${row.ids} distinct ids, on ${row.decisions} distinct decisions, ${row.invalid} invalid: ${ok ? 'every answered event, each exactly once' : 'NOT every answered event exactly once'}`,
        };
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
  };
}
