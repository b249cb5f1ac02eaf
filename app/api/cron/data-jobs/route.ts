import { dataJobsRoute } from '@/lib/routes/cron';

export const dynamic = 'force-dynamic';
// A scheduled call writes one export; on Vercel a function may run this long.
export const maxDuration = 300;
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = dataJobsRoute;
