import { askRoute } from '@/lib/routes/ask';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = askRoute;
