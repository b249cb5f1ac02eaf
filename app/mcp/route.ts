import { defineRoute } from '@/lib/http/kernel';
import { mcpRoute } from '@/lib/mcp/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(mcpRoute);
