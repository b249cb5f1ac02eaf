import { downloadRoute } from '@/lib/routes/downloads';

// Per request, as the signed-in buyer: never cached.
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = downloadRoute;
