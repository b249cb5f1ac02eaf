import { defineRoute } from '@/lib/http/kernel';
import { authorizeRoute } from '@/lib/oauth/authorize-route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(authorizeRoute);
