/**
 * `npx tsx scripts/bench-data.ts [records] [exportRows]` (defaults 5,000,000 and 1,000,000): the
 * data buyers' side at volume, on the PostgreSQL of BENCH_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), in a database of its own (`monetize_data_bench`,
 * made, migrated and seeded the first time, its records kept for the next run).
 *
 * 1. Stores `records` consented records (AI interactions of 40 apps in 10 categories, 3 models,
 *    received over 90 days; a tenth UX sessions) with set-based inserts, as the SDK's would land,
 *    the catalog's counts kept by their triggers.
 * 2. Times the catalog as a buyer reads it (lib/data/buyers/catalog.ts): the available count and
 *    a sample of 100, with no filter, one category, a 30-day range, and a category and a model;
 *    the median and the slowest of 15 runs each.
 * 3. Buys a standard license of `exportRows` rows (public.data_license_buy) and runs the export
 *    job on it (lib/data/buyers/export-job.ts) into a temporary folder: seconds, rows per second,
 *    the files' bytes, and the process's peak RSS and heap (sampled every 50 ms).
 *
 * Prints one JSON object. Nothing else should run on the machine meanwhile.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listingAvailability, listingSample } from '../lib/data/buyers/catalog';
import { runOneExport } from '../lib/data/buyers/export-job';
import { catalogFilter } from '../lib/data/buyers/schemas';
import { seed } from '../lib/demo/seed';
import { openPostgres, type Engine } from '../lib/platform/db/engine';
import { MemoryRateLimiter } from '../lib/platform/http/rate-limit';
import { migrate } from '../lib/platform/db/migrate';
import { LocalStorage } from '../lib/platform/storage/local';

const SERVER = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'monetize_data_bench';
const CHUNK = 250_000;
const MIB = 1024 * 1024;

async function database(): Promise<Engine> {
  const admin = await openPostgres(SERVER);
  try {
    const [exists] = await admin.query<{ n: number }>('select count(*)::int as n from pg_database where datname = $1', [DATABASE]);
    if (!exists!.n) await admin.exec(`create database ${DATABASE}`);
  } finally {
    await admin.close();
  }
  const url = new URL(SERVER);
  url.pathname = `/${DATABASE}`;
  const db = await openPostgres(url.toString());
  await migrate(db);
  await seed(db);
  return db;
}

/** Stores records until the bench's apps hold `target`; answers how long it took. */
async function fill(db: Engine, target: number): Promise<{ stored: number; seconds: number }> {
  const [owner] = await db.query<{ id: string }>("select id from public.users where email = 'demo2@example.com'");
  const [{ n: apps }] = (await db.query<{ n: number }>("select count(*)::int as n from public.apps where slug like 'bench-data-%'")) as [{ n: number }];
  if (apps === 0) {
    await db.query(
      `insert into public.apps (user_id, name, slug, category)
       select $1, 'Bench data ' || i, 'bench-data-' || i, array[(array['writing','education','food','health','finance','travel','code','music','design','sports'])[1 + i % 10]]
       from generate_series(1, 40) as i`,
      [owner!.id],
    );
    await db.query(
      `insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
       select a.id, a.user_id, md5(a.id::text) || md5(a.slug), '{ai_interactions,ux_sessions}', 'bench', now() - interval '100 days'
       from public.apps a where a.slug like 'bench-data-%'`,
    );
  }
  const count = async () =>
    ((await db.query<{ n: number }>("select count(*)::int as n from public.data_records where record_id like 'bench-%'"))[0] as { n: number }).n;
  const started = performance.now();
  let stored = await count();
  while (stored < target) {
    const n = Math.min(CHUNK, target - stored);
    await db.query(
      `with c as (select c.id, c.app_id, c.user_id, row_number() over (order by c.app_id) - 1 as k
                  from public.data_consents c join public.apps a on a.id = c.app_id where a.slug like 'bench-data-%')
       insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes, received_at)
       select c.app_id, c.user_id, c.id, md5((i % 200000)::text) || md5(c.app_id::text),
              case when i % 10 = 0 then 'ux_session' else 'ai_interaction' end, 'bench-' || i, p.payload, octet_length(p.payload::text),
              now() - make_interval(secs => (i % 7776000)::double precision)
       from generate_series($1::bigint, $1::bigint + $2 - 1) as i
       join c on c.k = i % 40
       cross join lateral (select case when i % 10 = 0
         then jsonb_build_object('started_at', now() - make_interval(secs => (i % 7776000)::double precision), 'duration_seconds', (i % 900)::int,
                                 'events', jsonb_build_array(jsonb_build_object('t', 0, 'type', 'view', 'target', 'screen#home'),
                                                             jsonb_build_object('t', 4.5, 'type', 'click', 'target', 'button#' || (i % 17))))
         else jsonb_build_object('prompt', 'How do I ' || md5(i::text) || ' with ' || md5((i * 7)::text) || '? I tried twice and it failed.',
                                 'response', 'Open the settings, then ' || md5((i * 3)::text) || '. ' || repeat('It should work after that. ', (1 + i % 8)::int),
                                 'model', (array['small-chat-1','large-chat-2','local-7b'])[1 + i % 3],
                                 'occurred_at', now() - make_interval(secs => (i % 7776000)::double precision))
         end as payload) p`,
      [stored, n],
    );
    stored += n;
    process.stderr.write(`stored ${stored.toLocaleString('en-US')} records\n`);
  }
  return { stored, seconds: (performance.now() - started) / 1000 };
}

async function timed(runs: number, fn: () => Promise<unknown>): Promise<{ median_ms: number; max_ms: number }> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median_ms: Math.round(ms[Math.floor(ms.length / 2)]! * 100) / 100, max_ms: Math.round(ms[ms.length - 1]! * 100) / 100 };
}

async function main(records: number, exportRows: number): Promise<void> {
  const db = await database();
  const filled = await fill(db, records);
  await db.exec('analyze public.data_records; analyze public.data_catalog_counts;');
  const [buyer] = await db.query<{ id: string }>("select id from public.users where email = 'buyer@example.com'");
  const buyerId = buyer!.id;
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
  const filters = {
    none: catalogFilter.parse({}),
    category: catalogFilter.parse({ categories: ['health'] }),
    range: catalogFilter.parse({ from: day(40), to: day(10) }),
    category_and_model: catalogFilter.parse({ categories: ['travel'], models: ['local-7b'] }),
  };
  // A buyer with the money for the license (samples are for funded buyers too), buying it as themselves below.
  await db.query(
    `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number, account_kind)
                values ($1, 100000000000, 'manual', 'INV-BENCH-' || substr(md5(random()::text), 1, 8), 'buyer') returning id)
     select public.top_up_credit(t.id, 'bench', null) from t`,
    [buyerId],
  );
  // The bench times the database, not the hourly budget of sample views.
  const views = new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 3600 });
  const catalog: Record<string, unknown> = {};
  for (const [name, filter] of Object.entries(filters)) {
    catalog[name] = {
      available: (await listingAvailability(db, buyerId, 'ai_interactions', filter)).records,
      count: await timed(15, () => listingAvailability(db, buyerId, 'ai_interactions', filter)),
      sample_100: await timed(15, () => listingSample(db, views, buyerId, 'ai_interactions', filter, 100)),
    };
  }

  const bought = performance.now();
  const [row] = await db.transaction(async (tx) => {
    await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [JSON.stringify({ sub: buyerId })]);
    return tx.query<{ answer: { ok: boolean; license_id?: string; error?: string } }>(
      "select public.data_license_buy('ai_interactions', '{}', null, null, '{}', $1, false, 100000000000) as answer",
      [exportRows],
    );
  });
  if (!row?.answer.ok) throw new Error(`the license was refused: ${row?.answer.error}`);
  const buySeconds = (performance.now() - bought) / 1000;
  // Only this license's export waits: the seed's ran before (or is done first, and not timed).
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-data-'));
  const storage = new LocalStorage(dir);
  const secret = Buffer.alloc(32, 7);
  await db.exec(`update public.data_exports set status = 'superseded' where status = 'queued' and license_id <> '${row.answer.license_id}'`);
  const peak = { rss: 0, heapUsed: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
  };
  const startRss = process.memoryUsage().rss;
  const sampler = setInterval(sample, 50);
  const exported = performance.now();
  await runOneExport(db, storage, secret);
  const exportSeconds = (performance.now() - exported) / 1000;
  clearInterval(sampler);
  sample();
  const [files] = await db.query<{ status: string; rows_done: number; jsonl_bytes: string; parquet_bytes: string }>(
    'select status, rows_done, jsonl_bytes::text, parquet_bytes::text from public.data_exports where license_id = $1',
    [row.answer.license_id],
  );
  await rm(dir, { recursive: true, force: true });
  await db.close();
  process.stdout.write(
    `${JSON.stringify(
      {
        records_stored: filled.stored,
        fill_seconds: Math.round(filled.seconds),
        catalog,
        license: { rows: exportRows, buy_seconds: Math.round(buySeconds * 10) / 10 },
        export: {
          status: files!.status,
          rows: files!.rows_done,
          seconds: Math.round(exportSeconds * 10) / 10,
          rows_per_second: Math.round(files!.rows_done / exportSeconds),
          parquet_bytes: Number(files!.parquet_bytes),
          jsonl_bytes: Number(files!.jsonl_bytes),
          start_rss_mib: Math.round((startRss / MIB) * 10) / 10,
          peak_rss_mib: Math.round((peak.rss / MIB) * 10) / 10,
          peak_heap_used_mib: Math.round((peak.heapUsed / MIB) * 10) / 10,
        },
      },
      null,
      2,
    )}\n`,
  );
}

main(Number(process.argv[2] ?? 5_000_000), Number(process.argv[3] ?? 1_000_000)).catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
