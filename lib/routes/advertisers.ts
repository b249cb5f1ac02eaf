import { advertiserReportCsvResponse } from '../advertisers/report-download';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/** GET /dashboard/ads/reports/report.csv: the signed-in advertiser's report rows as CSV. */
export const advertiserReportRoute = defineRoute(ROUTES['/dashboard/ads/reports/report.csv'], {
  GET: ({ request, services }) => advertiserReportCsvResponse(request, services),
});
