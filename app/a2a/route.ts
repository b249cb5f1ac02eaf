import { a2aRoute } from '@/lib/routes/a2a';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = a2aRoute;
