import { pricingRoute } from '@/lib/pricing/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = pricingRoute;
