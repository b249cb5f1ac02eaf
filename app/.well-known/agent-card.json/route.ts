import { agentCardRoute } from '@/lib/routes/a2a';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = agentCardRoute;
