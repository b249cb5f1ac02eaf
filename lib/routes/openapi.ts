import { defineRoute, json } from '../http/kernel';
import { ROUTES } from '../registry';
import { openApiDocument } from './document';

/** GET /api/v1/openapi.json */
export const openApiRoute = defineRoute(ROUTES['/api/v1/openapi.json'], { GET: () => json(openApiDocument()) });
