import { dataRoute } from '@/lib/sdk/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = dataRoute;
