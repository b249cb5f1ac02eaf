import { agentIdentityRoute } from '@/lib/routes/agent';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = agentIdentityRoute;
