import { asConsoleUser } from '../../identity/console';
import { asService, type Database } from '../../platform/db/roles';
import { z } from 'zod';
import { call, NOTHING, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { describeError, log } from '../../platform/log';
import { isObjectKey, type ObjectStorage } from '../../platform/storage';
import type { Result } from '../../platform/kit/result';
import { ADVERTISER_LIMITS, MEDIA_RULES } from './schemas';

/**
 * The bookkeeping of creatives' stored files, so that what an advertiser stores is bounded
 * (content/docs/advertisers.md, Limits; migration 20261213000700_bounded_storage):
 *
 * - Before a file is stored, its row is written as the advertiser (`reserveFiles`), which the
 *   database refuses past the advertiser's 500 MB: a file is never in the store without a row
 *   saying whose it is and how large.
 * - The database follows which creative names each file (a trigger on creatives). A file no
 *   creative names is deleted by the sweep (`sweepCreativeFiles`) once no decision of the last 24
 *   hours can name it: at once when its creative was never approved with it, else a day later.
 *   The console sweeps an advertiser's files right after an edit, so 25 edits leave one file.
 * - A file whose creative write never happened (a crash between storing and writing) is swept an
 *   hour later, and so is any object of the store that no table knows (`sweepOrphanFiles`:
 *   files stored before this bookkeeping, or left by a failed delete).
 *
 * The sweeps are the service's work for every advertiser (eslint.config.mjs,
 * SERVICE_ROLE_ALLOWLIST); the timer of the long-running server (lib/services.ts) and the
 * scheduled call (lib/routes/cron.ts) run `sweepStoredFiles`.
 */

/** A file found in the store that no table knows is deleted once it is this old (an upload in flight has written its row first). */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

const MB = 1024 * 1024;

const storageFacts = z.object({ used_bytes: z.coerce.number().default(0) });

/** public.creative_files_reserve's refusals, for an upload of `adding` bytes. */
const reserveRefusals = (adding: number): Refusals<'not_an_advertiser' | 'storage_full', z.infer<typeof storageFacts>> => ({
  not_an_advertiser: 'Set up your advertiser profile first.',
  storage_full: (a) =>
    `Your images and videos take ${(a.used_bytes / MB).toFixed(1)} MB of the ${ADVERTISER_LIMITS.storedBytes / MB} MB an advertiser may keep, and this upload needs ${(adding / MB).toFixed(1)} MB more: delete creatives you no longer need and try again. (A file you replaced is kept for ${ADVERTISER_LIMITS.keepReplacedHours} hours when an ad may still show it.)`,
});

/** Rows for the files about to be stored for the advertiser, or why not (the advertiser's storage is full). */
export async function reserveFiles(db: Database, userId: string, files: { key: string; bytes: number }[]): Promise<Result> {
  if (files.length === 0) return { ok: true, value: undefined };
  return call(
    asConsoleUser(db, userId),
    sql`select public.creative_files_reserve(${files.map((f) => f.key)}::text[], ${files.map((f) => String(f.bytes))}::bigint[]) as answer`,
    NOTHING,
    reserveRefusals(files.reduce((n, f) => n + f.bytes, 0)),
    { facts: storageFacts },
  );
}

/** Deletes stored objects, then the rows of those no creative names; a failure is logged, and the sweep tries again. */
export async function forgetFiles(db: Database, storage: ObjectStorage, keys: string[]): Promise<number> {
  const deleted: string[] = [];
  for (const key of keys) {
    try {
      await storage.delete(key);
      deleted.push(key);
    } catch (err) {
      log.error('stored media not deleted', { key, ...describeError(err) });
    }
  }
  if (deleted.length === 0) return 0;
  const [row] = await asService(db).query(sql`select public.creative_files_forget(${deleted}::text[]) as n`, z.object({ n: z.number().int() }));
  return row!.n;
}

/** A key of the store, as the functions that list them answer it (`setof text`). */
const storedKey = z.object({ key: z.string() });

/** Deletes the files that may go now (public.creative_files_sweepable): of one advertiser, or of all; answers how many. */
export async function sweepCreativeFiles(db: Database, storage: ObjectStorage, options: { advertiser?: string; limit?: number } = {}): Promise<number> {
  const rows = await asService(db).query(
    sql`select k as key from public.creative_files_sweepable(${options.advertiser ?? null}::uuid, ${options.limit ?? 500}) k`,
    storedKey,
  );
  return rows.length === 0
    ? 0
    : forgetFiles(
        db,
        storage,
        rows.map((r) => r.key),
      );
}

/** The extensions creatives' files are stored with (MEDIA_RULES): the orphan sweep looks at these keys only, never at other files of the store (data exports). */
const MEDIA_EXTENSIONS = new Set<string>([...Object.values(MEDIA_RULES.image.types), ...Object.values(MEDIA_RULES.video.types)].map((t) => t.extension));

function isMediaKey(key: string): boolean {
  return isObjectKey(key) && MEDIA_EXTENSIONS.has(key.slice(key.lastIndexOf('.') + 1));
}

/**
 * Deletes the creatives' files in the store that no table knows (public.creative_keys_known),
 * written more than ORPHAN_GRACE_MS before `now`; answers how many. Reads the whole listing, a
 * batch of keys at a time.
 */
export async function sweepOrphanFiles(db: Database, storage: ObjectStorage, now = Date.now()): Promise<number> {
  let swept = 0;
  let batch: string[] = [];
  const settle = async () => {
    const known = await asService(db).query(sql`select k as key from public.creative_keys_known(${batch}::text[]) k`, storedKey);
    const kept = new Set(known.map((r) => r.key));
    for (const key of batch) {
      if (kept.has(key)) continue;
      try {
        await storage.delete(key);
        swept++;
      } catch (err) {
        log.error('orphaned media not deleted', { key, ...describeError(err) });
      }
    }
    batch = [];
  };
  for await (const object of storage.list()) {
    if (!isMediaKey(object.key) || now - object.modifiedAt.getTime() < ORPHAN_GRACE_MS) continue;
    batch.push(object.key);
    if (batch.length >= 500) await settle();
  }
  if (batch.length > 0) await settle();
  return swept;
}

/**
 * Both sweeps, for the periodic jobs; a failure is logged, never thrown (the next run tries
 * again). The orphan sweep reads the whole store, so a caller that runs every minute asks for it
 * once an hour (`orphans: false` otherwise).
 */
export async function sweepStoredFiles(db: Database, storage: ObjectStorage, options: { orphans?: boolean } = {}): Promise<{ files: number; orphans: number }> {
  const files = await sweepCreativeFiles(db, storage).catch((err: unknown) => {
    log.error('creative files not swept', describeError(err));
    return 0;
  });
  if (options.orphans === false) return { files, orphans: 0 };
  const orphans = await sweepOrphanFiles(db, storage).catch((err: unknown) => {
    log.error('orphaned media not swept', describeError(err));
    return 0;
  });
  return { files, orphans };
}

/**
 * Runs `sweepStoredFiles` every `intervalMs` in the long-running server (lib/services.ts), the
 * orphan sweep once an hour, never two runs at once in this process.
 */
export function scheduleFileSweeps(database: () => Promise<Database>, storage: ObjectStorage, intervalMs: number): { stop(): void } {
  let running = false;
  let lastOrphans = 0;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const orphans = Date.now() - lastOrphans >= ORPHAN_GRACE_MS;
    if (orphans) lastOrphans = Date.now();
    void database()
      .then((db) => sweepStoredFiles(db, storage, { orphans }))
      .catch((err: unknown) => log.error('stored files not swept', describeError(err)))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
