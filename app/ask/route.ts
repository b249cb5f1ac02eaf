import { defineRoute } from '@/lib/http/kernel';
import { askRoute } from '@/lib/ask/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(askRoute);
