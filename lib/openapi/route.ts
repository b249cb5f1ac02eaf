import { z } from 'zod';
import { json, method, type RouteSpec } from '../http/kernel';
import { openApiDocument } from './document';
import { operationsOf } from './operations';

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

export const openApiOperations = operationsOf('/api/v1/openapi.json', openApiRoute, {
  GET: {
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 description of the API',
    tags: ['Public'],
    security: 'none',
    responses: { 200: { description: 'The OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) } },
  },
});
