import { mcpResourceMetadataRoute } from '@/lib/routes/oauth';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = mcpResourceMetadataRoute;
