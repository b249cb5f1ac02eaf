import { defineRoute } from '@/lib/http/kernel';
import { protectedResourceMetadataRoute } from '@/lib/oauth/discovery-routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(protectedResourceMetadataRoute('mcp'));
