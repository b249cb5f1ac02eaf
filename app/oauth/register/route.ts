import { defineRoute } from '@/lib/http/kernel';
import { registerRoute } from '@/lib/oauth/register-route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(registerRoute);
