import { downloadResponse } from '../data/buyers/downloads';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/** GET /downloads/<export>/<format>: a licensed export's file, for its signed-in buyer, by a link the console issued (lib/data/buyers/downloads.ts). */
export const downloadRoute = defineRoute(ROUTES['/downloads/[exportId]/[format]'], {
  GET: ({ request, params, services }) => downloadResponse(request, { exportId: String(params.exportId ?? ''), format: String(params.format ?? '') }, services),
});
