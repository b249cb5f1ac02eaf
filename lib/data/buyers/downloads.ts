import { asConsoleUser } from '../../identity/console';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { ApiError } from '../../platform/http/errors';
import type { ObjectStorage } from '../../platform/storage';
import type { OAuthSecrets } from '../../identity/secrets';
import { signedInUser } from '../../identity/auth/session';
import { JSONL_CONTENT_TYPE, PARQUET_CONTENT_TYPE } from './export-files';
import { LISTING_IDS } from './schemas';

/**
 * A license's files and the links that download them (migration 20261209000000_data_buyers).
 *
 * A link is issued on demand from the console, as often as the buyer likes, and lasts
 * DOWNLOAD_LINK_SECONDS: `/downloads/<export>/<format>?expires=…&sig=…`, its signature an
 * HMAC-SHA256 under the service's export secret of the export, the format, the buyer it was issued
 * to and its expiry. It downloads only for that buyer, signed in (a link that reached someone else
 * is refused, even signed in as another buyer), only before it expires, only while the license is
 * in force and only the export that is current (one superseded by a withdrawal is gone). Neither
 * a link nor a download while the buyer's account is on hold (a payment of theirs was refunded or
 * disputed: migration 20261213000500_reversals), checked at each: a link issued before the hold
 * downloads nothing after it.
 */

export const DOWNLOAD_LINK_SECONDS = 300;
export const EXPORT_FORMATS = ['parquet', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A license's export, as its buyer reads it (a superseded one is not read): no total until it started, no files until it is done. */
const exportStatus = z.object({
  id: z.string(),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  rows_total: z.number().int().nullable(),
  rows_done: z.number().int(),
  jsonl_bytes: z.number().nullable(),
  parquet_bytes: z.number().nullable(),
  error: z.string().nullable(),
  finished_at: z.date().nullable(),
});
export type ExportStatus = z.output<typeof exportStatus>;

export const ON_HOLD =
  'Your account is on hold: a payment of yours was refunded or disputed. Nothing can be downloaded until the operator has settled it with you.';

/** Whether the user's account is on hold (public.account_held, as the user: their own hold only). */
export async function accountOnHold(db: Database, userId: string): Promise<boolean> {
  const [row] = await asConsoleUser(db, userId).query(sql`select public.account_held(${userId}::uuid) as held`, z.object({ held: z.boolean() }));
  return row?.held === true;
}

/** The license's current export as its buyer sees it, or null (none yet, or not theirs). */
export async function licenseExport(db: Database, userId: string, licenseId: string): Promise<ExportStatus | null> {
  if (!/^[0-9a-f-]{36}$/.test(licenseId)) return null;
  const [row] = await asConsoleUser(db, userId).query(
    sql`select id, status, rows_total, rows_done, jsonl_bytes::float8 as jsonl_bytes, parquet_bytes::float8 as parquet_bytes, error, finished_at
        from public.data_exports where license_id = ${licenseId}::uuid and status <> 'superseded'`,
    exportStatus,
  );
  return row ?? null;
}

function signature(secret: Buffer, link: { exportId: string; format: ExportFormat; userId: string; expires: number }): string {
  return createHmac('sha256', secret).update(`download:v1:${link.exportId}:${link.format}:${link.userId}:${link.expires}`).digest('base64url');
}

/** A download link for the buyer, lasting DOWNLOAD_LINK_SECONDS from `nowMs`. */
export function downloadLink(secret: Buffer, link: { exportId: string; format: ExportFormat; userId: string }, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + DOWNLOAD_LINK_SECONDS;
  return `/downloads/${link.exportId}/${link.format}?expires=${expires}&sig=${signature(secret, { ...link, expires })}`;
}

type Services = {
  oauthSecrets(): Promise<OAuthSecrets | null>;
  database(): Promise<Database>;
  exportSecret(): Promise<Buffer>;
  now(): number;
  readonly storage: ObjectStorage;
};

const REFUSED = 'This download link is not valid for you: open the license in the console and download from there.';

/** GET /downloads/<export>/<format>: the file, streamed, or the API's error envelope. */
export async function downloadResponse(request: Request, params: { exportId: string; format: string }, services: Services): Promise<Response> {
  const user = await signedInUser(request.headers, services);
  if (!user) throw new ApiError('forbidden', 'Sign in to the console to download your data.');
  const format = EXPORT_FORMATS.find((f) => f === params.format);
  const url = new URL(request.url);
  const expires = Number(url.searchParams.get('expires'));
  const sig = url.searchParams.get('sig') ?? '';
  if (!format || !/^[0-9a-f-]{36}$/.test(params.exportId) || !Number.isSafeInteger(expires)) throw new ApiError('forbidden', REFUSED);
  if (expires < Math.floor(services.now() / 1000)) {
    throw new ApiError('forbidden', 'This download link has expired: open the license in the console for a new one.');
  }
  const expected = Buffer.from(signature(await services.exportSecret(), { exportId: params.exportId, format, userId: user.id, expires }));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('forbidden', REFUSED);
  if (await accountOnHold(await services.database(), user.id)) throw new ApiError('forbidden', ON_HOLD);

  const [row] = await asConsoleUser(await services.database(), user.id).query(
    sql`select e.status, e.jsonl_key, e.parquet_key, l.id as license_id, l.listing, l.status as license_status, l.expires_at
        from public.data_exports e join public.data_licenses l on l.id = e.license_id where e.id = ${params.exportId}::uuid`,
    // No keys until the export is done; no expiry until the license is granted.
    z.object({
      status: z.string(),
      jsonl_key: z.string().nullable(),
      parquet_key: z.string().nullable(),
      license_id: z.string(),
      listing: z.enum(LISTING_IDS),
      license_status: z.string(),
      expires_at: z.date().nullable(),
    }),
  );
  if (!row) throw new ApiError('forbidden', REFUSED);
  if (row.license_status !== 'active' || !row.expires_at || new Date(row.expires_at).getTime() <= services.now()) {
    throw new ApiError('forbidden', 'This license has expired: its files are no longer yours to download.');
  }
  if (row.status !== 'done') throw new ApiError('conflict', 'These files were replaced: open the license in the console for the current ones.');
  const key = format === 'parquet' ? row.parquet_key : row.jsonl_key;
  const object = key ? await services.storage.get(key) : null;
  if (!object) throw new ApiError('not_found', 'The file is missing from storage: write to support.');
  const name = `monetize-${row.listing.replace('_', '-')}-${row.license_id.slice(0, 8)}.${format}`;
  return new Response(object.body as BodyInit, {
    headers: {
      'content-type': format === 'parquet' ? PARQUET_CONTENT_TYPE : JSONL_CONTENT_TYPE,
      'content-disposition': `attachment; filename="${name}"`,
      'content-length': String(object.size),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
