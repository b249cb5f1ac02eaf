import http from 'node:http';
import https from 'node:https';
import { Lru } from '../../platform/cache/lru';
import { env } from '../../platform/env';
import { checkedLookup, isPrivateAddress, refusedLiteral } from '../../platform/http/private-address';
import { log } from '../../platform/log';
import { checkClientName } from './client-name';
import type { Client } from './clients';
import { checkRedirectUri, MAX_REDIRECT_URIS } from './redirect-uri';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client may use
 * an https URL as its `client_id`; we fetch the JSON document it serves. Fetching a URL a
 * stranger chose is an SSRF risk, so: no private, loopback or link-local addresses (checked on
 * the address actually connected to, so DNS rebinding cannot slip past), at most 5 KB, a short
 * timeout, no redirects. Documents are cached as their HTTP headers allow, failures for 30
 * seconds, and fetches are budgeted per client address and per instance (lib/identity/oauth/client-lookup.ts).
 */

export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 3000;
const DEFAULT_TTL_S = 300;
const MAX_TTL_S = 24 * 3600;

export { isPrivateAddress } from '../../platform/http/private-address';

function allowPrivate(): boolean {
  return env().OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS === '1';
}

/** Is this string meant as a metadata-document client_id (rather than a registered id)? */
export function looksLikeMetadataUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** The draft's rules for the URL itself: https, a path, no fragment, no credentials, no dot segments. */
export function checkClientIdUrl(clientId: string): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client_id URL is not a valid URL';
  }
  const httpAllowed = allowPrivate() && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) return 'a client_id URL must use https';
  if (clientId.includes('#')) return 'a client_id URL must not contain a fragment';
  if (url.username || url.password) return 'a client_id URL must not contain credentials';
  if (url.pathname === '/' || url.pathname === '') return 'a client_id URL must have a path';
  if (/\/\.\.?(\/|$)/.test(clientId.split('?')[0]!)) return 'a client_id URL must not contain dot segments';
  if (url.href !== clientId) return 'a client_id URL must be written in its normal form';
  return null;
}

/** Public addresses only, unless the test-only switch allows private ones (checked on each lookup). */
const allowedAddress = (address: string) => allowPrivate() || !isPrivateAddress(address);
const guardedLookup = checkedLookup(allowedAddress);

class DocumentError extends Error {}

type Fetched = { body: string; cacheControl?: string; expires?: string; date?: string };

/** Fetches at most MAX_DOCUMENT_BYTES, without following redirects, within the timeout. */
function fetchDocument(url: URL): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    if (refusedLiteral(url.hostname, allowedAddress)) {
      return reject(new DocumentError('the client_id URL points at a private address'));
    }
    let settled = false;
    // Settles once; later events of the torn-down request are ignored.
    const finish = (err: Error | null, value?: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(
          err instanceof DocumentError ? err : new DocumentError(`the client_id URL could not be fetched (${(err as NodeJS.ErrnoException).code ?? 'error'})`),
        );
      } else resolve(value!);
    };
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, { lookup: guardedLookup, headers: { Accept: 'application/json' } }, (res) => {
      res.on('error', (err) => finish(err));
      if (res.statusCode !== 200) return finish(new DocumentError(`the client_id URL answered ${res.statusCode} (redirects are not followed)`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DOCUMENT_BYTES) return finish(new DocumentError(`the client metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () =>
        finish(null, {
          body: Buffer.concat(chunks).toString('utf8'),
          cacheControl: res.headers['cache-control'],
          expires: res.headers.expires,
          date: res.headers.date,
        }),
      );
    });
    req.on('error', (err) => finish(err));
    // The whole exchange, not only the idle time between packets, must fit in the timeout.
    const timer = setTimeout(() => finish(new DocumentError('the client_id URL did not answer in time')), FETCH_TIMEOUT_MS);
  });
}

/** Seconds the answer may be reused, from Cache-Control or Expires (RFC 9111); 0: do not keep it. */
export function freshnessSeconds(headers: { cacheControl?: string; expires?: string; date?: string }, now = Date.now()): number {
  const cc = (headers.cacheControl ?? '').toLowerCase();
  if (/(^|,)\s*(no-store|no-cache|private)\s*(,|=|$)/.test(cc)) return 0;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cc);
  if (maxAge) return Math.min(Number(maxAge[1]), MAX_TTL_S);
  if (headers.expires) {
    const expires = Date.parse(headers.expires);
    const base = headers.date ? Date.parse(headers.date) : now;
    if (Number.isNaN(expires)) return 0;
    return Math.max(0, Math.min(Math.floor((expires - (Number.isNaN(base) ? now : base)) / 1000), MAX_TTL_S));
  }
  return DEFAULT_TTL_S;
}

/** Checks the document against its URL: the draft's required fields, our redirect rules. */
export function parseClientMetadataDocument(clientId: string, body: string): Client {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new DocumentError('the client metadata document is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new DocumentError('the client metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) throw new DocumentError('the document’s client_id is not the URL it was fetched from');
  // The same rule as registration (client-name.ts): a document with an unfit name is refused, not cleaned.
  const name = checkClientName(d.client_name);
  if (!name.ok) throw new DocumentError(`the document’s ${name.reason}`);
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || uris.some((u) => typeof u !== 'string' || !checkRedirectUri(u).ok)) {
    throw new DocumentError('the document needs redirect_uris, each an allowed redirect URI');
  }
  // A document is public: it cannot hold a secret, so the client is a public client.
  if (d.token_endpoint_auth_method !== undefined && d.token_endpoint_auth_method !== 'none') {
    throw new DocumentError('a client identified by a metadata document must use token_endpoint_auth_method none');
  }
  return {
    clientId,
    name: name.name,
    redirectUris: uris as string[],
    authMethod: 'none',
    secretHash: null,
    kind: 'metadata-document',
    verified: false,
  };
}

/** How long a failure is remembered: a flood of one bad client_id costs one fetch per this, not one per request. */
export const FAILURE_TTL_S = 30;

/** Documents, as long as their HTTP headers allow; failures, for FAILURE_TTL_S (one per instance, in its services). */
export type MetadataDocuments = Lru<string, { until: number } & ({ client: Client } | { reason: string })>;

export function metadataDocuments(): MetadataDocuments {
  return new Lru('client-metadata', 500);
}

export type MetadataLookup = { ok: true; client: Client } | { ok: false; reason: string; busy?: true };

/**
 * The client a metadata document describes. `admit` is asked before each fetch over the network
 * (a cache miss), and answers whether the budget allows one (lib/identity/oauth/client-lookup.ts): when it
 * does not, nothing is fetched and the answer is `busy`.
 */
export async function fetchClientMetadata(
  clientId: string,
  cache: MetadataDocuments,
  now = Date.now(),
  admit: () => boolean = () => true,
): Promise<MetadataLookup> {
  const hit = cache.get(clientId);
  if (hit && hit.until > now) return 'client' in hit ? { ok: true, client: hit.client } : { ok: false, reason: hit.reason };
  const bad = checkClientIdUrl(clientId);
  if (bad) return { ok: false, reason: bad };
  if (!admit()) return { ok: false, reason: 'too many client metadata documents were fetched lately; try again in a minute', busy: true };
  try {
    const res = await fetchDocument(new URL(clientId));
    const client = parseClientMetadataDocument(clientId, res.body);
    const ttl = freshnessSeconds(res, now);
    if (ttl > 0) cache.set(clientId, { client, until: now + ttl * 1000 });
    return { ok: true, client };
  } catch (err) {
    const reason = err instanceof DocumentError ? err.message : 'the client metadata document could not be fetched';
    log.warn('client metadata document refused', { client_id: clientId, reason });
    cache.set(clientId, { reason, until: now + FAILURE_TTL_S * 1000 });
    return { ok: false, reason };
  }
}
