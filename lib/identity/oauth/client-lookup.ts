import type { Database } from '../../platform/db/roles';
import { MemoryRateLimiter } from '../../platform/http/rate-limit';
import { findRegisteredClient, type Client } from './clients';
import { fetchClientMetadata, looksLikeMetadataUrl, metadataDocuments } from './client-metadata';

export type ClientLookup = { ok: true; client: Client } | { ok: false; reason: string; busy?: true };

/**
 * How many client metadata documents this instance fetches over the network (cache misses):
 * each is a request to a server a stranger named, so one address gets FETCHES_PER_ADDRESS a
 * minute and the instance FETCHES_OVERALL, whoever asks. Past either, the authorization request
 * is answered "try again later" without fetching.
 */
export const FETCHES_PER_ADDRESS = 10;
export const FETCHES_OVERALL = 100;

export class MetadataFetchBudget {
  /** The documents fetched, and the failures, as long as each may be kept. */
  readonly documents = metadataDocuments();
  private readonly perAddress: MemoryRateLimiter;
  private readonly overall: MemoryRateLimiter;

  constructor(now: () => number = Date.now) {
    this.perAddress = new MemoryRateLimiter({ max: FETCHES_PER_ADDRESS, windowSeconds: 60 }, now);
    this.overall = new MemoryRateLimiter({ max: FETCHES_OVERALL, windowSeconds: 60 }, now);
  }

  /** Takes one fetch from `address`'s budget and the instance's; false (and nothing taken) when either is spent. */
  take(address: string): boolean {
    if (!this.perAddress.consume(address).allowed) return false;
    if (this.overall.consume('all').allowed) return true;
    this.perAddress.refund(address, 1);
    return false;
  }
}

/** A registered client, or one whose client_id is the URL of its metadata document, fetched within `budget` for `address`. */
export async function lookupClient(clientId: string, engine: Database, budget: MetadataFetchBudget, address: string): Promise<ClientLookup> {
  if (looksLikeMetadataUrl(clientId)) return fetchClientMetadata(clientId, budget.documents, Date.now(), () => budget.take(address));
  const client = await findRegisteredClient(clientId, engine);
  return client ? { ok: true, client } : { ok: false, reason: 'no client is registered with this client_id' };
}
