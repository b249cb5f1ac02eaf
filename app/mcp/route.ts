import { mcpRoute } from '@/lib/mcp/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = mcpRoute;
