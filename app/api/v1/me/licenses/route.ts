import { licensesRoute } from '@/lib/routes/account';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = licensesRoute;
