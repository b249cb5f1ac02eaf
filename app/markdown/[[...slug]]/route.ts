import { defineRoute } from '@/lib/http/kernel';
import { markdownTwinRoute } from '@/lib/content/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(markdownTwinRoute);
