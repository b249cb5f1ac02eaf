import { apiResourceMetadataRoute } from '@/lib/oauth/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = apiResourceMetadataRoute;
