import { indexRoute } from '@/lib/routes/api';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = indexRoute;
