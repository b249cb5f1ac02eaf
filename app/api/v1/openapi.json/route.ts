import { openApiRoute } from '@/lib/openapi/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = openApiRoute;
