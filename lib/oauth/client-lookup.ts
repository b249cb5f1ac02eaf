import type { Engine } from '../db/database';
import { findRegisteredClient, type Client } from './clients';
import { fetchClientMetadata, looksLikeMetadataUrl } from './client-metadata';

export type ClientLookup = { ok: true; client: Client } | { ok: false; reason: string };

/** A registered client, or one whose client_id is the URL of its metadata document. */
export async function lookupClient(clientId: string, engine: Engine): Promise<ClientLookup> {
  if (looksLikeMetadataUrl(clientId)) return fetchClientMetadata(clientId);
  const client = await findRegisteredClient(clientId, engine);
  return client ? { ok: true, client } : { ok: false, reason: 'no client is registered with this client_id' };
}
