import { a2aRoute } from '@/lib/a2a/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = a2aRoute;
