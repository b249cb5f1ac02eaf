import { defineRoute } from '@/lib/http/kernel';
import { a2aRoute } from '@/lib/a2a/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(a2aRoute);
