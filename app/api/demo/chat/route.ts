import { demoChatRoute } from '@/lib/routes/demo';

// A streamed answer per request: never cached.
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = demoChatRoute;
