import { pricingRoute } from '@/lib/routes/pricing';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = pricingRoute;
