import { defineRoute } from '@/lib/http/kernel';
import { docsMcpRoute } from '@/lib/mcp/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(docsMcpRoute);
