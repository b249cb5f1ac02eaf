import { docsMcpRoute } from '@/lib/routes/mcp';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = docsMcpRoute;
