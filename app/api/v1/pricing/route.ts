import { defineRoute } from '@/lib/http/kernel';
import { pricingRoute } from '@/lib/pricing/route';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(pricingRoute);
