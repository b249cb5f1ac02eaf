import { defineRoute } from '@/lib/http/kernel';
import { apiKeysRoute } from '@/lib/account/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(apiKeysRoute);
