import { describe, expect, it } from 'vitest';
import { campaignReportCsv } from './report';

describe("a campaign's CSV report", () => {
  const day = { day: '2026-11-27', creative_id: 'c1', app_id: 'a1', app_name: 'Quizly', format: 'inline_text' as const, fills: 10, impressions: 4, clicks: 1 };

  it('has a row per day, creative and app, with spend exact to the micro-dollar and CTR and eCPM from the row', () => {
    const csv = campaignReportCsv('Autumn', [{ id: 'c1', headline: 'Learn fast', format: 'inline_text' }], [{ ...day, spent_micro: 10_000 }]);
    expect(csv.split('\r\n')).toEqual([
      'day,campaign,creative_id,creative,format,app_id,app,fills,impressions,clicks,ctr,spend_usd,ecpm_usd',
      '2026-11-27,Autumn,c1,Learn fast,inline_text,a1,Quizly,10,4,1,0.2500,0.010000,2.50',
      '',
    ]);
  });

  it('never lets a headline, campaign or app name run as a spreadsheet formula', () => {
    const csv = campaignReportCsv(
      '=HYPERLINK("x")',
      [{ id: 'c1', headline: '+1+1', format: 'inline_text' }],
      [{ ...day, app_name: '@SUM(A1)', spent_micro: 0 }],
    );
    const row = csv.split('\r\n')[1]!;
    expect(row).toContain(`"'=HYPERLINK(""x"")"`);
    expect(row).toContain("'+1+1");
    expect(row).toContain("'@SUM(A1)");
  });
});
