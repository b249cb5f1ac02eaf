import { eventsRoute } from '@/lib/routes/sdk';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = eventsRoute;
