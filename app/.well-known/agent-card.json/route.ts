import { agentCardRoute } from '@/lib/a2a/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = agentCardRoute;
