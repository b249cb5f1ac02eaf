import { sitemapRoute } from '@/lib/content/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = sitemapRoute;
