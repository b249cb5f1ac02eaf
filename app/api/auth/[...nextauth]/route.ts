import { nextAuthRoute } from '@/lib/routes/auth';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextAuthRoute;
