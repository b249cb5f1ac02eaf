import { z } from 'zod';
import { ApiError } from '../../platform/http/errors';
import { signedInUser } from '../../identity/auth/session';
import type { Database } from '../../platform/db/roles';
import type { OAuthSecrets } from '../../identity/secrets';
import { advertiserReport, REPORT_PERIODS, reportCsv, type ReportPeriod } from './reports';

/** What a report asks for: a period of 7, 30 or 90 days (30 when unsaid or unknown) and, optionally, one campaign. */
export const reportQuery = z.object({
  days: z
    .enum(REPORT_PERIODS.map(String) as [string, ...string[]])
    .catch('30')
    .default('30')
    .transform((v) => Number(v) as ReportPeriod),
  campaign: z.string().uuid().optional().catch(undefined),
});

type Services = { oauthSecrets(): Promise<OAuthSecrets | null>; database(): Promise<Database> };

/**
 * The advertiser's report as a CSV download, for the signed-in user only (a session cookie of
 * this service; otherwise a 403 in the API's error envelope), never cached. The same rows as the
 * reports page.
 */
export async function advertiserReportCsvResponse(request: Request, services: Services): Promise<Response> {
  const user = await signedInUser(request.headers, services);
  if (!user) throw new ApiError('forbidden', 'Sign in to the console to download your report.');
  const url = new URL(request.url);
  const query = reportQuery.parse({ days: url.searchParams.get('days') ?? undefined, campaign: url.searchParams.get('campaign') ?? undefined });
  const rows = await advertiserReport(await services.database(), user.id, query.days, query.campaign ?? null);
  return new Response(reportCsv(rows), {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="monetize-report-${query.days}-days.csv"`,
      'cache-control': 'no-store',
    },
  });
}
