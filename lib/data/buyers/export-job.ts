import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { describeError, log } from '../../platform/log';
import type { ObjectStorage } from '../../platform/storage';
import { JSONL_CONTENT_TYPE, PARQUET_CONTENT_TYPE, writeExport, type ExportColumn, type ExportColumnType } from './export-files';
import { LISTING_IDS, LISTINGS, type ListingId, type ListingField } from './schemas';
import { deliveriesDue, runDeletionWebhooks, type DeliveryRun } from './webhooks';

/**
 * The export job (migration 20261209000000_data_buyers, `data_exports`): writes a granted
 * license's records as JSONL and Parquet to object storage, streaming (lib/data/buyers/export-files.ts).
 *
 * It is a queue in PostgreSQL worked the way the traffic roll-up is: a server's timer claims the
 * oldest queued export with a lease (`for update skip locked`, so several servers share the work
 * and none waits), reads the license's records a batch at a time by record id, reports progress
 * as it goes, and records the files at the end; a server that dies mid-export lets its lease run
 * out and another takes the export over from the start. pg-boss and graphile-worker were the
 * other candidates: both keep their own connections to a PostgreSQL server, which the embedded
 * database of a fresh clone (PGlite, one in-process session) cannot give them.
 *
 * Subjects leave as pseudonyms of the license: HMAC-SHA256, under a key derived from the
 * service's export secret and the license, of the stored subject id, so one person is the same
 * within a license and two buyers cannot join their records on it. Files are stored under keys of
 * their own shape (`export-…`), which the public media route never serves.
 */

/** Rows read and written per batch. */
export const EXPORT_BATCH_ROWS = 5_000;
/** How long a claimed export is its server's before another may take it over; renewed with every batch. */
const LEASE_SECONDS = 120;
/** Attempts before an export is left failed (its error shown to the buyer). */
const MAX_ATTEMPTS = 3;

const TYPES: Record<ListingField['type'], ExportColumnType> = { string: 'STRING', timestamp: 'TIMESTAMP', number: 'DOUBLE', json: 'JSON' };

/** The columns of a listing's files, as its listing documents them. */
export function exportColumns(listing: ListingId): ExportColumn[] {
  return LISTINGS[listing].fields.map((f) => ({ name: f.name, type: TYPES[f.type], nullable: f.nullable, description: f.meaning }));
}

/** The key a license's pseudonyms are made under. */
function pseudonymKey(secret: Buffer, license: string): Buffer {
  return createHmac('sha256', secret).update(`export-subject:${license}`).digest();
}

/** The subject's pseudonym in one license: 32 hex digits. */
function pseudonymUnder(key: Buffer, subjectHash: string): string {
  return createHmac('sha256', key).update(subjectHash).digest('hex').slice(0, 32);
}

/** A stored record as the export reads it: its app's categories beside it, the payload parsed json. */
const storedRecord = z.object({
  id: z.string(),
  subject_hash: z.string(),
  kind: z.string(),
  categories: z.array(z.string()),
  received_at: z.date(),
  payload: z.record(z.string(), z.unknown()),
});
type StoredRecord = z.output<typeof storedRecord>;

const at = (v: unknown): Date | null => (typeof v === 'string' || v instanceof Date ? new Date(v) : null);

/** A stored record as a row of its listing's files. */
export function exportRow(listing: ListingId, record: StoredRecord, subject: string): Record<string, unknown> {
  const common = { record_id: record.id, subject, app_categories: record.categories, received_at: new Date(record.received_at) };
  const p = record.payload;
  if (listing === 'ai_interactions') {
    return {
      ...common,
      occurred_at: at(p.occurred_at),
      model: typeof p.model === 'string' ? p.model : null,
      prompt: String(p.prompt),
      response: String(p.response),
    };
  }
  if (listing === 'ux_sessions') {
    return { ...common, started_at: at(p.started_at), duration_seconds: Number(p.duration_seconds), events: p.events };
  }
  return { ...common, kind: record.kind, data: p };
}

/** A new key for an export file: random, and of a shape the media route refuses. */
export function exportFileKey(extension: 'jsonl' | 'parquet'): string {
  return `export-${randomBytes(16).toString('base64url')}.${extension}`;
}

const claimed = z.object({
  id: z.string(),
  license_id: z.string(),
  listing: z.enum(LISTING_IDS),
  attempts: z.number().int(),
  /** The license's record count: its positions run from 1 to it. */
  positions: z.number().int(),
});
type Claimed = z.output<typeof claimed>;

async function claim(db: Database): Promise<Claimed | null> {
  const [row] = await asService(db).query(
    sql`update public.data_exports e set status = 'running', attempts = e.attempts + 1, started_at = now(), rows_done = 0,
          lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
        from public.data_licenses l
        where l.id = e.license_id and e.id = (
          select x.id from public.data_exports x
          where x.status = 'queued' or (x.status = 'running' and x.lease_until < now())
          order by x.queued_at limit 1 for update skip locked)
        returning e.id, e.license_id, l.listing, e.attempts, l.records as positions`,
    claimed,
  );
  return row ?? null;
}

/**
 * The license's records at positions after `after`, up to `after + limit`, still stored (an erased
 * record is not there): a range of positions costs the same wherever it is in the license.
 */
async function records(db: Database, license: string, after: number, limit: number): Promise<StoredRecord[]> {
  return asService(db).query(
    sql`select r.id, r.subject_hash, r.kind, a.category as categories, r.received_at, r.payload
        from public.data_license_records lr
        join public.data_records r on r.id = lr.record_id
        join public.apps a on a.id = r.app_id
        where lr.license_id = ${license}::uuid and lr.position > ${after} and lr.position <= ${after + limit}
        order by lr.position`,
    storedRecord,
  );
}

/** Progress, and the lease renewed; false when the export is no longer this server's (superseded, or taken over). */
async function progress(db: Database, id: string, rowsDone: number): Promise<boolean> {
  const rows = await asService(db).query(
    sql`update public.data_exports set rows_done = ${rowsDone}, lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
        where id = ${id}::uuid and status = 'running' returning 1`,
  );
  return rows.length === 1;
}

class Superseded extends Error {}

/** Runs one export if one is waiting; answers whether there was one. */
export async function runOneExport(db: Database, storage: ObjectStorage, secret: Buffer, batchRows = EXPORT_BATCH_ROWS): Promise<boolean> {
  const job = await claim(db);
  if (!job) return false;
  const [total] = await asService(db).query(
    sql`select count(*)::int as n from public.data_license_records lr join public.data_records r on r.id = lr.record_id
        where lr.license_id = ${job.license_id}::uuid`,
    z.object({ n: z.number().int() }),
  );
  await asService(db).query(sql`update public.data_exports set rows_total = ${total!.n} where id = ${job.id}::uuid`);
  const keys = { jsonl: exportFileKey('jsonl'), parquet: exportFileKey('parquet') };
  const key = pseudonymKey(secret, job.license_id);
  async function* batches(): AsyncGenerator<Record<string, unknown>[]> {
    let done = 0;
    for (let after = 0; after < job!.positions; after += batchRows) {
      const rows = await records(db, job!.license_id, after, batchRows);
      done += rows.length;
      if (rows.length > 0) yield rows.map((r) => exportRow(job!.listing, r, pseudonymUnder(key, r.subject_hash)));
      if (!(await progress(db, job!.id, done))) throw new Superseded();
    }
  }
  try {
    const written = await writeExport(batches(), exportColumns(job.listing), {
      jsonl: (chunks) => storage.putStream(keys.jsonl, chunks, JSONL_CONTENT_TYPE),
      parquet: (chunks) => storage.putStream(keys.parquet, chunks, PARQUET_CONTENT_TYPE),
    });
    const finished = await asService(db).query(
      sql`update public.data_exports set status = 'done', finished_at = now(), lease_until = null, rows_done = ${written.rows}, rows_total = ${written.rows},
            jsonl_key = ${keys.jsonl}, parquet_key = ${keys.parquet}, jsonl_bytes = ${written.jsonlBytes}, parquet_bytes = ${written.parquetBytes}, error = null
          where id = ${job.id}::uuid and status = 'running' returning 1`,
    );
    // Superseded while it ran (a withdrawal): its files hold erased records, and are not kept.
    if (finished.length === 0) await removeFiles(storage, keys);
    return true;
  } catch (err) {
    await removeFiles(storage, keys);
    if (err instanceof Superseded) return true;
    log.error('data export failed', { export_id: job.id, attempt: job.attempts, ...describeError(err) });
    await asService(db).query(
      sql`update public.data_exports set status = case when attempts >= ${MAX_ATTEMPTS} then 'failed' else 'queued' end, lease_until = null,
            error = ${'The export could not be written; it is tried again up to three times. If it stays failed, write to support.'}
          where id = ${job.id}::uuid and status = 'running'`,
    );
    return true;
  }
}

async function removeFiles(storage: ObjectStorage, keys: { jsonl: string; parquet: string }): Promise<void> {
  await Promise.allSettled([storage.delete(keys.jsonl), storage.delete(keys.parquet)]);
}

/** Deletes the files of exports superseded or failed, a few at a time. */
export async function sweepExportFiles(db: Database, storage: ObjectStorage, limit = 20): Promise<number> {
  const stale = await asService(db).query(
    sql`select id, jsonl_key, parquet_key from public.data_exports
        where status in ('superseded', 'failed') and not files_deleted order by queued_at limit ${limit}`,
    // No keys when the export never finished writing its files.
    z.object({ id: z.string(), jsonl_key: z.string().nullable(), parquet_key: z.string().nullable() }),
  );
  for (const s of stale) {
    await Promise.all([s.jsonl_key, s.parquet_key].filter((k): k is string => k !== null).map((k) => storage.delete(k)));
    await asService(db).query(sql`update public.data_exports set files_deleted = true where id = ${s.id}::uuid`);
  }
  return stale.length;
}

/** Runs waiting exports one after another until none waits (at most `max`), then sweeps old files. */
export async function runExports(db: Database, storage: ObjectStorage, secret: Buffer, max = 10): Promise<number> {
  let ran = 0;
  while (ran < max && (await runOneExport(db, storage, secret))) ran++;
  await sweepExportFiles(db, storage);
  return ran;
}

/** What one pass of the data buyers' background work did. */
export interface DataJobsRun {
  /** Deliveries of deletion notices sent (delivered, to retry, failed), or null when none was due or it failed. */
  deliveries: DeliveryRun | null;
  /** Exports written. */
  exports: number;
}

/**
 * One pass of the data buyers' background work: first, when `dataKey` is given, the deletion
 * notices due at buyers' webhooks (lib/data/buyers/webhooks.ts; quick, each attempt bounded to 5
 * seconds; the key that unseals their secrets is asked for only when some are due), then up to
 * `maxExports` exports. A failure of the deliveries is logged and does not keep the exports from
 * running; a failure of the exports throws. The long-running server's timer runs it
 * (`scheduleExports`); where no process stays up (Vercel), the scheduler calls
 * `/api/cron/data-jobs`, which runs it once per call.
 */
export async function runDataJobs(
  db: Database,
  storage: ObjectStorage,
  secret: () => Promise<Buffer>,
  dataKey?: () => Promise<Buffer>,
  maxExports = 10,
): Promise<DataJobsRun> {
  let deliveries: DeliveryRun | null = null;
  if (dataKey) {
    deliveries = await deliveriesDue(db)
      .then(async (due) => (due ? runDeletionWebhooks(db, await dataKey()) : null))
      .catch((err: unknown) => {
        log.error('deletion webhook run failed', describeError(err));
        return null;
      });
  }
  return { deliveries, exports: await runExports(db, storage, await secret(), maxExports) };
}

/**
 * Runs `runDataJobs` every `intervalMs` until stopped, never two runs at once in this process.
 * `kick()` runs it at once (after a purchase). A failed run is logged and the next tries again.
 */
export function scheduleExports(
  database: () => Promise<Database>,
  storage: ObjectStorage,
  secret: () => Promise<Buffer>,
  intervalMs: number,
  dataKey?: () => Promise<Buffer>,
): { kick(): void; stop(): void } {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    database()
      .then((db) => runDataJobs(db, storage, secret, dataKey))
      .catch((err) => log.error('data export run failed', describeError(err)))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return { kick: run, stop: () => clearInterval(timer) };
}
