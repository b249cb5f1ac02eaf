import { describe, expect, it } from 'vitest';
import { micro } from '../../platform/kit/micro';
import { costPerConversion, dailySeries, periodDays, reportCsv, returnOnSpend, sumBy, type ReportRow } from './reports';

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
  conversions: 0,
  conversion_value_micro: micro(0),
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
    const rows = [
      row({}),
      row({ app: 'Notely', spent_micro: micro(50_000), impressions: 10, conversions: 2, conversion_value_micro: micro(3_000_000) }),
      row({ app: 'Quizly', clicks: 2, hides: 1, conversions: 1, conversion_value_micro: micro(1) }),
    ];
    expect(sumBy(rows, (r) => r.app)).toEqual([
      { key: 'Notely', impressions: 10, clicks: 1, hides: 0, spent: 50_000, conversions: 2, conversionValue: 3_000_000 },
      { key: 'Quizly', impressions: 8, clicks: 3, hides: 1, spent: 20_000, conversions: 1, conversionValue: 1 },
    ]);
  });

  it('writes CSV rows with exact spend and no formula a spreadsheet would run', () => {
    const lines = reportCsv([
      row({ campaign: '=cmd()', creative: '@x', hides: 2, conversions: 3, conversion_value_micro: micro(25_000_001) }),
      row({ spent_micro: micro(0), impressions: 0, clicks: 0 }),
    ]).split('\r\n');
    expect(lines[0]).toBe(
      'day,campaign_id,campaign,creative_id,creative,format,app_id,app,fills,impressions,clicks,ctr,spend_usd,ecpm_usd,hides,conversions,conversion_value_usd,cost_per_conversion_usd,return_on_spend',
    );
    // 0.01 USD over 3 conversions: 3,333.33 micro-dollars, to the micro-dollar 3,333; 25.000001 USD of value for 0.01 USD spent.
    expect(lines[1]).toBe("2026-11-27,k1,'=cmd(),c1,'@x,inline_text,a1,Quizly,10,4,1,0.2500,0.010000,2.50,2,3,25.000001,0.003333,2500.0001");
    // Nothing to divide by: empty, not zero.
    expect(lines[2]).toBe('2026-11-27,k1,Autumn,c1,Learn fast,inline_text,a1,Quizly,10,0,0,0,0.000000,0,0,0,0.000000,,');
  });

  it('says what a conversion cost and what the spend returned, or nothing without conversions or spend', () => {
    expect(costPerConversion(micro(10_000_000), 3)).toBe(3_333_333);
    expect(costPerConversion(micro(10_000_000), 0)).toBeNull();
    expect(returnOnSpend(micro(30_000_000), micro(10_000_000))).toBe(3);
    expect(returnOnSpend(micro(30_000_000), micro(0))).toBeNull();
  });
});
