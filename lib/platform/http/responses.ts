import { env } from '../env';

/** An absolute URL on this service. */
export function absoluteUrl(path: string): string {
  return `${env().PUBLIC_BASE_URL}${path}`;
}

/** Answers that carry a credential (RFC 6749 §5.1: a token, a client secret) are never cached. */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;
