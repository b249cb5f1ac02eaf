import { defineRoute } from '@/lib/http/kernel';
import { nextAuthRoute } from '@/lib/auth/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(nextAuthRoute);
