import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, createPlacement } from '@/lib/publisher/writes';
import type { Engine } from '@/lib/platform/db/engine';
import { adBody } from '@/lib/schemas/sdk';
import { rollUp } from '@/lib/ads/serving/rollup';
import { suiteDatabase, testEngines } from '../helpers/db';
import { registerClient } from '../helpers/oauth';
import { rawAsService } from '../helpers/roles';
import { newKey, sdk } from '../helpers/sdk';

/**
 * What one address can make the database store in a minute is bounded (SECURITY.md, What
 * strangers can store): at most a minute's rate limit of requests (120), and each request at most
 * its own bound. A stranger with only a page's publishable key, from one address, spends a whole
 * minute's budget on the requests that store the most: ad requests (a decision each), batches of
 * 100 events about one ad (invalid traffic, kept once per ad, kind and reason), first consents of
 * new subjects, the largest batches of consented data, and OAuth client registrations. Then every
 * table is counted again.
 */

const ADDRESS = '198.51.100.200';
/** The rate limit per address and minute (content/docs/rate-limits.md). */
const PER_MINUTE = 120;
/** The most rows one request of each kind may add, in all tables together (after the roll-up). */
const ROWS_PER_REQUEST = {
  // A decision, and (by the roll-up, once per campaign and five minutes) what its campaign was promised.
  ads: 2,
  // Invalid traffic once per ad, kind and reason; counters only for billable impressions.
  events: 2,
  // The consent, the subject (with its proof's hash), its arrival (new subjects are counted per
  // address and hour), and at most the app's usage of the day, when new (and per app and day).
  consents: 4,
  // Its records, and at most the subject's and the app's usage of the day, when they are new.
  data: 52,
  register: 1,
} as const;
type Kind = keyof typeof ROWS_PER_REQUEST;
/** Rows the service adds once, whoever asks: its keys made on first use, the placement's figures of the day. */
const ONCE = { 'public.service_secrets': 3, 'public.daily_stats': 1 };
/** The most bytes of consented data one request may store: its body's limit. */
const DATA_BYTES_PER_REQUEST = 1024 * 1024;

async function tableRows(db: Engine): Promise<Map<string, number>> {
  return rawAsService(db, async (q) => {
    const tables = await q.query<{ name: string }>(
      "select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname in ('public', 'auth') order by 1",
    );
    const counts = new Map<string, number>();
    for (const { name } of tables) {
      const [row] = await q.query<{ n: number }>(`select count(*)::int as n from ${name}`);
      counts.set(name, row!.n);
    }
    return counts;
  });
}

for (const engine of testEngines()) {
  describe(`what one address can make the database store in a minute, on ${engine.name}`, () => {
    // The real rate limit: 120 requests per 60 s per address.
    const suite = suiteDatabase(engine);
    let key: string;
    let placement: string;

    beforeAll(async () => {
      const slug = `bound-${Math.random().toString(36).slice(2, 10)}`;
      const app = await createApp(suite.db, suite.users.demo, { name: `Bound ${slug}`, slug, description: '', category: [], allowed_origins: [] });
      if (!app.ok) throw new Error(app.error);
      const made = await createPlacement(suite.db, suite.users.demo, { app_id: app.value.id, name: 'Card', format: 'sponsored_card' });
      if (!made.ok) throw new Error(made.error);
      placement = made.value.id;
      key = (await newKey(suite.db, suite.users.demo, { appId: app.value.id })).key;
    });

    it('is a minute of the rate limit, and each request at most its bound, whatever it sends', async () => {
      await rollUp(suite.db);
      const before = await tableRows(suite.db);
      const headers = { 'x-api-key': key, 'user-agent': 'Flood/1.0' };
      const accepted: Record<Kind, number> = { ads: 0, events: 0, consents: 0, data: 0, register: 0 };
      let token: string | undefined;
      let subject = 0;
      let proof: { subject: string; proof: string } | undefined;
      const record = 'x'.repeat(7_900);
      const kinds: Kind[] = ['ads', 'events', 'consents', 'data', 'register'];
      const refused = new Set<Kind>();
      for (let i = 0; refused.size < kinds.length && i < PER_MINUTE * 3; i++) {
        const kind = kinds[i % kinds.length]!;
        let status: number;
        if (kind === 'ads') {
          const res = await sdk(`/functions/v1/ads?placement_id=${placement}`, { headers, ip: ADDRESS });
          status = res.status;
          if (status === 200) token = adBody.parse(res.body).token;
        } else if (kind === 'events') {
          if (!token) continue;
          const events = Array.from({ length: 100 }, (_, n) => ({
            id: `flood-${i}-${n}`,
            type: n % 2 ? 'click' : 'impression',
            token,
            viewability: { visible_share: 1, visible_seconds: 86_400 },
          }));
          status = (await sdk('/functions/v1/events', { body: { events }, headers, ip: ADDRESS })).status;
        } else if (kind === 'consents') {
          const id = (++subject).toString(16).padStart(64, 'a');
          const res = await sdk('/functions/v1/consents', {
            body: { subject_id: id, purposes: ['ai_interactions'], policy_version: '1' },
            headers,
            ip: ADDRESS,
          });
          status = res.status;
          if (status === 200 && !proof) proof = { subject: id, proof: res.body.consent_proof };
        } else if (kind === 'data') {
          if (!proof) continue;
          const records = Array.from({ length: 50 }, (_, n) => ({ id: `flood-${i}-${n}`, data: { prompt: record, response: record } }));
          status = (
            await sdk('/functions/v1/data', {
              body: { subject_id: proof.subject, kind: 'ai_interaction', records },
              headers: { ...headers, 'x-consent-proof': proof.proof },
              ip: ADDRESS,
            })
          ).status;
        } else {
          const res = await registerClient(
            { client_name: `Flood ${i}`, redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' },
            { 'x-forwarded-for': ADDRESS },
          );
          status = res.res.status;
        }
        if (status === 429) refused.add(kind);
        else if (status >= 200 && status < 300) accepted[kind]++;
        else throw new Error(`${kind} answered ${status}`);
      }

      // Every kind was refused once the minute's budget was spent, and no more than the budget got through.
      expect([...refused].sort()).toEqual([...kinds].sort());
      const total = Object.values(accepted).reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThan(PER_MINUTE / 2);
      expect(total).toBeLessThanOrEqual(PER_MINUTE);

      await rollUp(suite.db);
      const after = await tableRows(suite.db);
      const grown = [...after]
        .map(([table, n]) => ({ table, rows: n - (before.get(table) ?? 0) - Math.min(ONCE[table as keyof typeof ONCE] ?? 0, n - (before.get(table) ?? 0)) }))
        .filter((t) => t.rows > 0);
      const rows = grown.reduce((sum, t) => sum + t.rows, 0);
      const bound = kinds.reduce((sum, kind) => sum + accepted[kind] * ROWS_PER_REQUEST[kind], 0);
      expect(rows, JSON.stringify({ accepted, grown })).toBeLessThanOrEqual(bound);
      // Invalid traffic: a row per ad and kind here (one reason each), not 100 per request.
      expect(after.get('public.ad_events')! - before.get('public.ad_events')!).toBeLessThanOrEqual(2 * accepted.ads);

      const [data] = await rawAsService(suite.db, (q) => q.query<{ bytes: number }>('select coalesce(sum(bytes), 0)::int as bytes from public.data_records'));
      expect(data!.bytes).toBeLessThanOrEqual(accepted.data * DATA_BYTES_PER_REQUEST);
    });
  });
}
