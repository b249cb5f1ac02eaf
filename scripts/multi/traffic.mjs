// The simulated browsers of `npm run test:instances`, and the ledger of everything they were told.
//
// Each browser has its own loopback address (127.77.x.y), in a /24 of its own, and user agent, so
// it is its own client for the rate limit (its address) and for the money path (its network, the
// /24, which the caps count by, and its user agent, which its impressions must come from:
// lib/platform/http/client-ip.ts). It goes through the balancer and does what a page with
// the SDK does: asks for an ad, sends the ad's impression once it has been in view for a second
// (VIEW_DELAY_S after the answer), sometimes clicks (after the impression was counted), and
// retries a failed request with the same event ids. On top of that, on purpose:
// - it sends some batches a second time after they were answered (a retry whose first answer
//   was not lost: it must be `duplicate`);
// - for some ads, another browser sends an impression first (`other_client`: an impression counts
//   only from the client the ad was served to, whichever instance it reaches).
import { agentFrom, sleep, withRetries } from './client.mjs';
import { VIEW_DELAY_S } from './settings.mjs';

const AD_KINDS = ['capped', 'open'];
const SLOW_MS = 250;

/**
 * Browser `i`'s own address: 127.77.<x>.<y>, x from 0 to 249, each browser in a /24 of its own (of
 * 250 browsers), since the frequency cap and the hourly cap of billable impressions count by network
 * (the /24), whatever user agent is sent.
 */
export const browserAddress = (i) => `127.77.${i % 250}.${Math.floor(i / 250) + 1}`;

export class Ledger {
  constructor() {
    /** Every HTTP attempt, by what it was for. */
    this.attempts = { ads: new Tally(), events: new Tally() };
    /** Ads: answered with an ad of each campaign, answered 204, or failed after every retry. */
    this.ads = { capped: 0, open: 0, empty: 0, failed: 0 };
    /** Event id → { id, type, decision, campaign, answers: [{ status, reason, instance, attempt, deliberate, at }], failures: [...] }. */
    this.events = new Map();
    /** Batches sent again on purpose once answered. */
    this.deliberateRetries = 0;
  }

  event(id, type, ad) {
    let e = this.events.get(id);
    if (!e) {
      e = { id, type, decision: ad.decision, campaign: ad.campaign, answers: [], failures: [] };
      this.events.set(id, e);
    }
    return e;
  }
}

/** Counts of attempts by status (or error) and by instance, and their latencies. */
class Tally {
  constructor() {
    this.total = 0;
    this.byStatus = {};
    this.byInstance = {};
    this.ms = [];
    /** Attempts that took over SLOW_MS, failed or were refused: when, where, and how long, for the results file. */
    this.notable = [];
  }
  add(r) {
    this.total++;
    const key = r.error ? `error ${r.error}` : String(r.status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    if (r.instance !== undefined) this.byInstance[r.instance] = (this.byInstance[r.instance] ?? 0) + 1;
    const ms = r.answeredAt - r.sentAt;
    if (!r.error) this.ms.push(ms);
    if (r.error || r.status >= 300 || ms > SLOW_MS) this.notable.push({ sentAt: r.sentAt, ms, status: r.status ?? r.error, instance: r.instance });
  }
}

/** The browsers, `count` of them, each on one of the traffic publishers in turn. */
export function makeBrowsers(count, publishers) {
  return Array.from({ length: count }, (_, i) => ({
    index: i,
    address: browserAddress(i),
    agent: agentFrom(browserAddress(i)),
    userAgent: `Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 instances-browser/${i}`,
    session: `instances-${i}`,
    publisher: publishers[i % publishers.length],
  }));
}

const random = (lo, hi) => lo + Math.random() * (hi - lo);

/**
 * Runs every browser until `until()` says stop (a page view under way then finishes), through the
 * balancer on `port`. Resolves when the last browser has finished.
 */
export async function runBrowsers({ browsers, port, ledger, until }) {
  const send = (browser, request) => ({
    port,
    agent: browser.agent,
    ...request,
    headers: { 'user-agent': browser.userAgent, 'x-api-key': browser.publisher.key, ...request.headers },
  });

  /** Sends a batch of events with the SDK's retries; records each attempt's answers. Answers the last attempt's results by id. */
  const sendEvents = async (browser, events, deliberate = false) => {
    const request = send(browser, { method: 'POST', path: '/functions/v1/events', body: { events: events.map((e) => e.body) } });
    const last = await withRetries(request, (r, attempt) => {
      ledger.attempts.events.add(r);
      const answered = r.status === 200 && Array.isArray(r.json?.results) ? new Map(r.json.results.map((x) => [x.id, x])) : undefined;
      for (const e of events) {
        const entry = ledger.event(e.body.id, e.body.type, e.ad);
        const result = answered?.get(e.body.id);
        if (result) entry.answers.push({ status: result.status, reason: result.reason, instance: r.instance, attempt, deliberate, at: r.answeredAt });
        else entry.failures.push({ status: r.status, error: r.error, instance: r.instance, attempt, deliberate });
      }
    });
    return last.status === 200 && Array.isArray(last.json?.results) ? new Map(last.json.results.map((x) => [x.id, x.status])) : new Map();
  };

  const pageView = async (browser) => {
    const publisher = browser.publisher;
    const path = `/functions/v1/ads?placement_id=${publisher.placementId}&session_id=${browser.session}`;
    const r = await withRetries(send(browser, { path }), (attempt) => ledger.attempts.ads.add(attempt));
    if (r.status === 204) return void ledger.ads.empty++;
    if (r.status !== 200 || !r.json?.token) return void ledger.ads.failed++;
    const campaign = AD_KINDS.find((k) => r.json.ad?.headline === `Instances: ${k}`) ?? 'other';
    ledger.ads[campaign] = (ledger.ads[campaign] ?? 0) + 1;
    const ad = { decision: r.json.decision_id, token: r.json.token, campaign, servedAt: r.answeredAt };

    if (Math.random() < 0.05) {
      // Another browser on the same page reports this ad: not the client it was served to.
      const other = browsers[(browser.index + 1) % browsers.length];
      const body = { id: `${ad.decision}.elsewhere`, type: 'impression', token: ad.token, viewability: { visible_share: 1, visible_seconds: 0 } };
      await sendEvents({ ...other, publisher }, [{ body, ad }]);
    }

    // Once it has been in view for a continuous second, the SDK sends it (the rule: 1 s for a
    // sponsored card; never more seconds in view than have passed since the ad was served).
    await sleep(random(VIEW_DELAY_S[0] * 1000, VIEW_DELAY_S[1] * 1000));
    const impression = {
      body: { id: `${ad.decision}.impression`, type: 'impression', token: ad.token, viewability: { visible_share: 0.9, visible_seconds: 1, area_px: 96_000 } },
      ad,
    };
    const answered = await sendEvents(browser, [impression]);
    if (Math.random() < 0.1) {
      ledger.deliberateRetries++;
      await sendEvents(browser, [impression], true);
    }
    if (answered.get(impression.body.id) !== 'recorded' || Math.random() >= 0.35) return;

    await sleep(random(300, 1_000));
    const click = { body: { id: `${ad.decision}.click`, type: 'click', token: ad.token }, ad };
    await sendEvents(browser, [click]);
    if (Math.random() < 0.1) {
      ledger.deliberateRetries++;
      await sendEvents(browser, [click], true);
    }
  };

  await Promise.all(
    browsers.map(async (browser) => {
      // Spread the first requests over the first two seconds.
      await sleep(random(0, 2_000));
      while (!until()) {
        await pageView(browser);
        await sleep(random(500, 1_500));
      }
    }),
  );
  for (const browser of browsers) browser.agent.destroy();
}
