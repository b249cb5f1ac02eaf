import { env } from '../env';
import { apiErrorBody } from '../schemas/common';
import type { ResponseDoc } from '../openapi/operations';

/** An absolute URL on this service. */
export function absoluteUrl(path: string): string {
  return `${env().PUBLIC_BASE_URL}${path}`;
}

/** The error responses every public REST operation documents. */
export const badRequest: ResponseDoc = { description: 'An invalid or missing parameter.', schema: apiErrorBody };
