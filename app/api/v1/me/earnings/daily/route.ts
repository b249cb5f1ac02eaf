import { dailyEarningsRoute } from '@/lib/account/handlers';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = dailyEarningsRoute;
