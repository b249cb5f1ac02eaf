import type { z } from 'zod';
import type { RouteSpec } from '../http/kernel';
import type { Scope } from '../schemas/account';

/**
 * What the OpenAPI document says of one operation. Routes describe themselves with
 * `operationsOf`, which takes the query and body schemas the handler validates with and the
 * route's deprecation flag, so the document cannot drift from the code.
 */

export type Security = 'none' | 'optional-bearer' | 'bearer';

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** Extra response headers, by name (the common ones are added for every REST operation). */
  headers?: Record<string, string>;
  contentType?: string;
}

export interface ApiOperation {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Security;
  /** The scope an account operation needs. */
  scope?: Scope;
  query?: z.ZodObject;
  body?: z.ZodType;
  requestHeaders?: { name: string; schema: z.ZodType; description: string }[];
  responses: Record<number, ResponseDoc>;
  deprecated?: boolean;
}

export type OperationDoc = Omit<ApiOperation, 'method' | 'path' | 'query' | 'body' | 'deprecated'>;

export function operationsOf(path: string, spec: RouteSpec, docs: Partial<Record<'GET' | 'POST', OperationDoc>>): ApiOperation[] {
  return (Object.entries(docs) as ['GET' | 'POST', OperationDoc][]).map(([method, doc]) => {
    const declared = spec.methods[method];
    if (!declared) throw new Error(`${path}: ${method} is documented but not declared`);
    return {
      ...doc,
      method: method.toLowerCase() as 'get' | 'post',
      path,
      query: declared.query as z.ZodObject | undefined,
      body: declared.body,
      deprecated: spec.deprecated ? true : undefined,
    };
  });
}
