import { nextAuthRoute } from '@/lib/auth/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextAuthRoute;
