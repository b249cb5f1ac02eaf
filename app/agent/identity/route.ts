import { agentIdentityRoute } from '@/lib/agent/route';
import { defineRoute } from '@/lib/http/kernel';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(agentIdentityRoute);
