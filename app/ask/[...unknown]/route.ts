import { unknownPathRoute } from '@/lib/routes/not-found';

/** Any path under /ask that no route has: the API's 404 (lib/routes/not-found.ts). */
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = unknownPathRoute('/ask/[...unknown]');
