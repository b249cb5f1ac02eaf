import { env } from '../env';
import { apiErrorBody } from '../schemas/common';
import type { ResponseDoc } from '../openapi/operations';

/** An absolute URL on this service. */
export function absoluteUrl(path: string): string {
  return `${env().PUBLIC_BASE_URL}${path}`;
}

/** The error responses every public REST operation documents. */
export const badRequest: ResponseDoc = { description: 'An invalid or missing parameter.', schema: apiErrorBody };

/** Answers that carry a credential (RFC 6749 §5.1: a token, a client secret) are never cached. */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
