import { conversionsRoute } from '@/lib/routes/conversions';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = conversionsRoute;
