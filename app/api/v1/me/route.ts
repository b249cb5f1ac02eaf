import { defineRoute } from '@/lib/http/kernel';
import { profileRoute } from '@/lib/account/routes';

export const dynamic = 'force-dynamic';
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineRoute(profileRoute);
