import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { openApiDocument } from '../docs/openapi/document';

/** GET /api/v1/openapi.json */
export const openApiRoute = defineRoute(ROUTES['/api/v1/openapi.json'], { GET: () => json(openApiDocument()) });
