import { defineRoute } from '@/lib/http/kernel';
import { indexRoute } from '@/lib/api/index';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(indexRoute);
