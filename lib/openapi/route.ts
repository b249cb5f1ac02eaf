import { json, method, type RouteSpec } from '../http/kernel';
import { openApiDocument } from './document';

/** GET /api/v1/openapi.json */
export const openApiRoute: RouteSpec = {
  name: 'openapi',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({ cache: 'public, max-age=300', handler: () => json(openApiDocument()) }),
  },
};
