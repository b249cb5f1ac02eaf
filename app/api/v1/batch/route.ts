import { defineRoute } from '@/lib/http/kernel';
import { batchRoute } from '@/lib/batch/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(batchRoute);
