import { mediaRoute } from '@/lib/routes/media';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = mediaRoute;
