import { defineRoute } from '@/lib/http/kernel';
import { sitemapRoute } from '@/lib/content/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(sitemapRoute);
