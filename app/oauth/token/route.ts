import { defineRoute } from '@/lib/http/kernel';
import { tokenRoute } from '@/lib/oauth/token';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(tokenRoute);
