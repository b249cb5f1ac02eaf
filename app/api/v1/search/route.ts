import { searchRoute } from '@/lib/routes/search';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = searchRoute;
