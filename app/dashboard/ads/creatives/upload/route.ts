import { creativeUploadRoute } from '@/lib/routes/advertisers';

// Per request, as the signed-in advertiser: never cached.
export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = creativeUploadRoute;
