import { creativeUploadResponse } from '../ads/advertisers/creative-upload';
import { advertiserReportCsvResponse } from '../ads/advertisers/report-download';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/** GET /dashboard/ads/reports/report.csv: the signed-in advertiser's report rows as CSV. */
export const advertiserReportRoute = defineRoute(ROUTES['/dashboard/ads/reports/report.csv'], {
  GET: ({ request, services }) => advertiserReportCsvResponse(request, services),
});

/** POST /dashboard/ads/creatives/upload: the console's creative form with its files (lib/ads/advertisers/creative-upload.ts). */
export const creativeUploadRoute = defineRoute(ROUTES['/dashboard/ads/creatives/upload'], {
  POST: ({ request, clientIp, services }) => creativeUploadResponse(request, clientIp, services),
});
