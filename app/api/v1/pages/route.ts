import { pagesRoute } from '@/lib/routes/content';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = pagesRoute;
