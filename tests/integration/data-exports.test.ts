import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookie } from '@/lib/identity/auth/signin';
import { createApp } from '@/lib/publisher/writes';
import { saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense } from '@/lib/data/buyers/catalog';
import { downloadLink, downloadResponse, licenseExport } from '@/lib/data/buyers/downloads';
import { exportColumns, runExports, runOneExport } from '@/lib/data/buyers/export-job';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import type { Queryable } from '@/lib/platform/db/engine';
import { LocalStorage } from '@/lib/platform/storage';
import { dataJobsRoute } from '@/lib/routes/cron';
import { recordedConsentBody } from '@/lib/schemas/sdk';
import type { Services } from '@/lib/services';
import { readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, runAs } from '../helpers/roles';
import { bound, makeServices } from '../helpers/services';
import { newKey, sdk } from '../helpers/sdk';
import { requestTopUp } from '@/lib/money/funds';
import { micro } from '@/lib/platform/kit/micro';

/**
 * A license's files (lib/data/buyers/export-job.ts, downloads.ts), on every engine: the export job
 * writes the licensed records as Parquet and JSONL whose rows and columns are the license's, with
 * subjects as pseudonyms of the license; the buyer downloads them through a short-lived link
 * issued to them, which nobody else can use, nor they after it expired; a withdrawal supersedes
 * the files with ones without the erased records.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const subject = (name: string) => createHash('sha256').update(name).digest('hex');

for (const engine of testEngines()) {
  describe(`data exports on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `ex${Math.random().toString(36).slice(2, 8)}`;
    const HERE = [`${tag}-notes`];
    let dir: string;
    let storage: LocalStorage;
    let services: Services;
    let app: { appId: string; key: string };
    const proofs = new Map<string, string>();
    let n = 0;
    let clock = Date.now();

    const staff = async () => ({ sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' });
    const buyer = async (company: string) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${tag}-${++n}@buyers.test`, company]),
      );
      await saveBuyerProfile(suite.db, id, {
        company,
        intended_use: 'Evaluating assistants.',
        billing_email: 'b@buyers.test',
        country: 'FR',
        accept_terms: true,
      });
      const asked = await requestTopUp(suite.db, id, micro(50_000_000), 'buyer');
      if (!asked.ok) throw new Error(asked.error);
      await runAs(suite.db, 'authenticated', await staff(), (q) => q.query("select public.staff_top_up_record($1, true, 'BANK')", [asked.value.id]));
      return { id, email: `${tag}-${n}@buyers.test` };
    };
    const interactions = async (name: string, count: number) => {
      const s = subject(`${tag}-${name}`);
      let proof = proofs.get(name);
      if (!proof) {
        const res = await sdk('/functions/v1/consents', {
          body: { subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' },
          headers: { 'x-api-key': app.key },
        });
        proof = recordedConsentBody.parse(res.body).consent_proof;
        proofs.set(name, proof);
      }
      const records = Array.from({ length: count }, (_, i) => ({
        id: `${name}-${i}`,
        data: { prompt: `Question ${i} from ${name} é 😀`, response: `Answer ${i}`, model: i % 2 ? 'demo-1' : undefined, occurred_at: '2026-11-20T10:00:00Z' },
      }));
      const res = await sdk('/functions/v1/data', {
        body: { subject_id: s, kind: 'ai_interaction', records },
        headers: { 'x-api-key': app.key, 'x-consent-proof': proof },
      });
      expect(res.status, res.text).toBe(200);
    };
    const buy = async (who: string, quantity: number) => {
      const bought = await buyLicense(suite.db, who, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({ categories: HERE }),
        quantity,
        exclusive: false,
        maxPriceMicro: 10_000_000,
      });
      if (!bought.ok) throw new Error(bought.error);
      return bought.value.license_id;
    };
    const download = async (url: string, who: { id: string; email: string } | null) => {
      const cookie = who ? await sessionCookie({ id: who.id, email: who.email, name: null }, services) : null;
      const parsed = new URL(url, 'http://localhost:3000');
      const [, , exportId, format] = parsed.pathname.split('/');
      return downloadResponse(
        new Request(parsed, { headers: cookie ? { cookie: `${cookie.name}=${cookie.value}` } : {} }),
        { exportId: exportId!, format: format! },
        services,
      ).then(
        (res) => res,
        (err: { status?: number; code?: string; message: string }) => ({ status: err.status ?? 500, code: err.code, message: err.message }),
      );
    };
    const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'exports-'));
      storage = new LocalStorage(dir);
      services = makeServices({ database: suite.db, storage, now: () => clock });
      const made = await createApp(suite.db, suite.users.demo, { name: 'Exported', slug: `${tag}-app`, description: '', category: HERE, allowed_origins: [] });
      if (!made.ok) throw new Error(made.error);
      // Old enough, with real use: its records are for sale (public.data_apps_for_sale).
      await readyToSell(suite.db, made.value.id);
      // This suite is about files, not the market's spread: its one app may fill a whole license.
      await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set data_license_min_share_records = 1000000'));
      app = { appId: made.value.id, key: (await newKey(suite.db, suite.users.demo, { appId: made.value.id })).key };
      await interactions('ann', 7);
      await interactions('bob', 5);
      // The demo buyer's export, waiting since the seed: written first, so each test sees its own.
      await runExports(suite.db, storage, await services.exportSecret());
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes a license’s records as Parquet and JSONL whose rows and columns are the license’s, subjects as its own pseudonyms', async () => {
      const first = await buyer('Parquet Co');
      const second = await buyer('Other Parquet Co');
      const license = await buy(first.id, 12);
      const other = await buy(second.id, 12);
      expect(await licenseExport(suite.db, first.id, license)).toMatchObject({ status: 'queued', rows_done: 0 });
      expect(await licenseExport(suite.db, second.id, license)).toBeNull();
      const secret = await services.exportSecret();
      // Two small batches, to cross a batch boundary.
      expect(await runOneExport(suite.db, storage, secret, 5)).toBe(true);
      expect(await runExports(suite.db, storage, secret)).toBe(1);
      expect(await runOneExport(suite.db, storage, secret)).toBe(false);
      const done = await licenseExport(suite.db, first.id, license);
      expect(done).toMatchObject({ status: 'done', rows_total: 12, rows_done: 12, error: null });

      const parquet = await download(downloadLink(secret, { exportId: done!.id, format: 'parquet', userId: first.id }, clock), first);
      expect(parquet.status).toBe(200);
      const res = parquet as Response;
      expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="monetize-ai-interactions-[0-9a-f]{8}\.parquet"$/);
      const file = (await bytesOf(res)).buffer as ArrayBuffer;
      const metadata = parquetMetadata(file);
      expect(Number(metadata.num_rows)).toBe(12);
      expect(metadata.schema.slice(1).map((c) => c.name)).toEqual(exportColumns('ai_interactions').map((c) => c.name));
      const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
      const covered = await rawAsService(suite.db, (q) =>
        q.query<{ record_id: string }>('select record_id from public.data_license_records where license_id = $1 order by position', [license]),
      );
      expect(rows.map((r) => r.record_id)).toEqual(covered.map((c) => c.record_id));
      // Two people, each one pseudonym of 32 hex digits, never their stored id.
      const subjects = new Set(rows.map((r) => r.subject as string));
      expect(subjects.size).toBe(2);
      for (const s of subjects) expect(s).toMatch(/^[0-9a-f]{32}$/);
      expect(JSON.stringify(rows)).not.toContain(subject(`${tag}-ann`));
      expect(rows.find((r) => r.model === null)).toBeDefined();
      expect(rows[0]).toMatchObject({ app_categories: HERE, prompt: expect.stringContaining('é 😀'), occurred_at: new Date('2026-11-20T10:00:00Z') });

      const jsonl = await download(downloadLink(secret, { exportId: done!.id, format: 'jsonl', userId: first.id }, clock), first);
      const lines = new TextDecoder()
        .decode(await bytesOf(jsonl as Response))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.map((l) => l.record_id)).toEqual(rows.map((r) => r.record_id));

      // Another license of the same records: other pseudonyms, so the two cannot be joined.
      const theirs = await licenseExport(suite.db, second.id, other);
      const theirRows = (await parquetReadObjects({
        file: (await bytesOf((await download(downloadLink(secret, { exportId: theirs!.id, format: 'parquet', userId: second.id }, clock), second)) as Response))
          .buffer as ArrayBuffer,
      })) as Record<string, unknown>[];
      expect(theirRows.map((r) => r.record_id)).toEqual(rows.map((r) => r.record_id));
      for (const r of theirRows) expect(subjects.has(r.subject as string)).toBe(false);
    });

    it('the scheduler’s call writes the next export, and only with the deployment’s secret', async () => {
      const who = await buyer('Scheduled Co');
      const license = await buy(who.id, 3);
      const SECRET = 'cron-secret-of-this-test-0123456789abcdef';
      const call = (cronSecret: string | null, authorization?: string) =>
        bound(dataJobsRoute, makeServices({ database: suite.db, storage, now: () => clock, cronSecret })).GET(
          new Request('http://localhost:3000/api/cron/data-jobs', { headers: authorization === undefined ? {} : { authorization } }),
        );
      // Not there without CRON_SECRET, nor without the secret, with another or in another form.
      for (const [secret, authorization] of [
        [null, `Bearer ${SECRET}`],
        ...[undefined, '', 'Bearer ', `Bearer ${SECRET}x`, `Bearer ${SECRET.slice(1)}`, `Basic ${SECRET}`, SECRET].map((a) => [SECRET, a] as const),
      ] as const) {
        const refused = await call(secret, authorization);
        expect(refused.status, String(authorization)).toBe(404);
        expect(await refused.json()).toMatchObject({ error: { status: 404, code: 'not_found' } });
      }
      expect(await licenseExport(suite.db, who.id, license)).toMatchObject({ status: 'queued' });
      // With it: one export per call, the next call finds none waiting.
      const ran = await call(SECRET, `Bearer ${SECRET}`);
      expect(ran.status).toBe(200);
      expect(ran.headers.get('cache-control')).toBe('no-store');
      expect(await ran.json()).toEqual({ deliveries: null, exports: 1 });
      expect(await licenseExport(suite.db, who.id, license)).toMatchObject({ status: 'done', rows_total: 3, rows_done: 3 });
      expect(await (await call(SECRET, `Bearer ${SECRET}`)).json()).toEqual({ deliveries: null, exports: 0 });
    });

    it('a withdrawal after the export supersedes its files with ones without the erased records', async () => {
      const owner = await buyer('Withdrawn Co');
      await interactions('cyd', 2);
      const license = await buy(owner.id, 2);
      const secret = await services.exportSecret();
      await runExports(suite.db, storage, secret);
      const before = await licenseExport(suite.db, owner.id, license);
      const oldLink = downloadLink(secret, { exportId: before!.id, format: 'jsonl', userId: owner.id }, clock);
      expect((await download(oldLink, owner)).status).toBe(200);
      const [{ jsonl_key: oldKey }] = (await rawAsService(suite.db, (q) =>
        q.query('select jsonl_key from public.data_exports where id = $1', [before!.id]),
      )) as [{ jsonl_key: string }];

      const withdrawn = await sdk(`/functions/v1/consents?subject_id=${subject(`${tag}-cyd`)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': app.key, 'x-consent-proof': proofs.get('cyd')! },
      });
      expect(withdrawn.body).toMatchObject({ deleted_records: 2 });
      // The old files are gone from the console at once, and from storage at the next run.
      expect(await download(oldLink, owner)).toMatchObject({ status: 409 });
      expect(await licenseExport(suite.db, owner.id, license)).toMatchObject({ status: 'queued' });
      await runExports(suite.db, storage, secret);
      expect(await storage.get(oldKey)).toBeNull();
      const after = await licenseExport(suite.db, owner.id, license);
      expect(after).toMatchObject({ status: 'done', rows_total: 0 });
      const file = (
        await bytesOf((await download(downloadLink(secret, { exportId: after!.id, format: 'parquet', userId: owner.id }, clock), owner)) as Response)
      ).buffer as ArrayBuffer;
      expect(Number(parquetMetadata(file).num_rows)).toBe(0);
    });

    it('an account on hold (a payment of its refunded or disputed) downloads nothing and buys nothing until it is released', async () => {
      const owner = await buyer('Held Co');
      const license = await buy(owner.id, 2);
      const secret = await services.exportSecret();
      await runExports(suite.db, storage, secret);
      const current = await licenseExport(suite.db, owner.id, license);
      const link = downloadLink(secret, { exportId: current!.id, format: 'jsonl', userId: owner.id }, clock);
      expect((await download(link, owner)).status).toBe(200);
      // The hold public.top_up_reverse puts on an account whose card money was taken back.
      await suite.db.query("insert into public.account_holds (user_id, cause) values ($1, 'dispute')", [owner.id]);
      expect(await download(link, owner)).toMatchObject({ status: 403, message: expect.stringContaining('on hold') });
      const refused = await buyLicense(suite.db, owner.id, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({ categories: HERE }),
        quantity: 1,
        exclusive: false,
        maxPriceMicro: 10_000_000,
      });
      expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('on hold') });
      await suite.db.query("update public.account_holds set released_at = now(), release_reason = 'settled' where user_id = $1", [owner.id]);
      expect((await download(link, owner)).status).toBe(200);
    });

    it('a download link works only for its buyer, signed in, before it expires, while the license is in force', async () => {
      const owner = await buyer('Link Co');
      const stranger = await buyer('Stranger Co');
      const license = await buy(owner.id, 3);
      const secret = await services.exportSecret();
      await runExports(suite.db, storage, secret);
      const current = await licenseExport(suite.db, owner.id, license);
      const link = downloadLink(secret, { exportId: current!.id, format: 'parquet', userId: owner.id }, clock);
      expect((await download(link, owner)).status).toBe(200);
      expect(await download(link, null)).toMatchObject({ status: 403 });
      // Someone else's link, even signed in, and one issued to them for another's export.
      expect(await download(link, stranger)).toMatchObject({ status: 403, message: expect.stringContaining('not valid for you') });
      const forged = downloadLink(secret, { exportId: current!.id, format: 'parquet', userId: stranger.id }, clock);
      expect(await download(forged, stranger)).toMatchObject({ status: 403 });
      expect(await download(link.replace(/sig=[^&]+/, 'sig=AAAA'), owner)).toMatchObject({ status: 403 });
      expect(await download(link.replace('/parquet?', '/csv?'), owner)).toMatchObject({ status: 403 });
      // Five minutes later the link has expired; a new one works.
      clock += 301_000;
      expect(await download(link, owner)).toMatchObject({ status: 403, message: expect.stringContaining('expired') });
      expect((await download(downloadLink(secret, { exportId: current!.id, format: 'parquet', userId: owner.id }, clock), owner)).status).toBe(200);
      // Past the license's term, no link works.
      await rawAsService(suite.db, (q) => q.query("select public.data_licenses_advance(now() + interval '366 days')"));
      expect(await download(downloadLink(secret, { exportId: current!.id, format: 'parquet', userId: owner.id }, clock), owner)).toMatchObject({
        status: 403,
        message: expect.stringContaining('license has expired'),
      });
    });
  });
}
