import { defineRoute } from '@/lib/http/kernel';
import { searchRoute } from '@/lib/search/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(searchRoute);
