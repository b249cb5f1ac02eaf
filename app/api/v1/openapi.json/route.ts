import { openApiRoute } from '@/lib/routes/openapi';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = openApiRoute;
