import { stripeWebhookRoute } from '@/lib/routes/webhooks';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = stripeWebhookRoute;
