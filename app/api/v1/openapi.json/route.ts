import { defineRoute } from '@/lib/http/kernel';
import { openApiRoute } from '@/lib/openapi/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(openApiRoute);
