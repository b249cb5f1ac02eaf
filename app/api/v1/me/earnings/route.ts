import { defineRoute } from '@/lib/http/kernel';
import { earningsRoute } from '@/lib/account/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(earningsRoute);
