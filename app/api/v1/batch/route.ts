import { batchRoute } from '@/lib/routes/batch';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = batchRoute;
