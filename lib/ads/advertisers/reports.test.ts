import { describe, expect, it } from 'vitest';
import { micro } from '../../platform/kit/micro';
import { dailySeries, periodDays, reportCsv, sumBy, type ReportRow } from './reports';

const row = (over: Partial<ReportRow>): ReportRow => ({
  day: '2026-11-27',
  campaign_id: 'k1',
  campaign: 'Autumn',
  creative_id: 'c1',
  creative: 'Learn fast',
  format: 'inline_text',
  app_id: 'a1',
  app: 'Quizly',
  fills: 10,
  impressions: 4,
  clicks: 1,
  hides: 0,
  spent_micro: micro(10_000),
  ...over,
});

describe("an advertiser's report", () => {
  it('covers every day of the period, oldest first, days without figures at zero', () => {
    const days = periodDays('2026-11-27', 3);
    expect(days).toEqual(['2026-11-25', '2026-11-26', '2026-11-27']);
    expect(dailySeries([row({}), row({ app_id: 'a2', spent_micro: micro(5_000) }), row({ day: '2026-11-25' })], days, (r) => r.spent_micro)).toEqual([
      { date: '2026-11-25', value: 10_000 },
      { date: '2026-11-26', value: 0 },
      { date: '2026-11-27', value: 15_000 },
    ]);
  });

  it('sums by campaign, format, app or creative, largest spend first', () => {
    const rows = [row({}), row({ app: 'Notely', spent_micro: micro(50_000), impressions: 10 }), row({ app: 'Quizly', clicks: 2, hides: 1 })];
    expect(sumBy(rows, (r) => r.app)).toEqual([
      { key: 'Notely', impressions: 10, clicks: 1, hides: 0, spent: 50_000 },
      { key: 'Quizly', impressions: 8, clicks: 3, hides: 1, spent: 20_000 },
    ]);
  });

  it('writes CSV rows with exact spend and no formula a spreadsheet would run', () => {
    const lines = reportCsv([row({ campaign: '=cmd()', creative: '@x', hides: 2 })]).split('\r\n');
    expect(lines[0]).toBe('day,campaign_id,campaign,creative_id,creative,format,app_id,app,fills,impressions,clicks,ctr,spend_usd,ecpm_usd,hides');
    expect(lines[1]).toBe("2026-11-27,k1,'=cmd(),c1,'@x,inline_text,a1,Quizly,10,4,1,0.2500,0.010000,2.50,2");
  });
});
