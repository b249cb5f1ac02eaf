import { agentIdentityRoute } from '@/lib/agent/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = agentIdentityRoute;
