import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookie } from '@/lib/identity/auth/signin';
import { buyLicense, listingSample } from '@/lib/data/buyers/catalog';
import { downloadLink, downloadResponse, licenseExport } from '@/lib/data/buyers/downloads';
import { runExports } from '@/lib/data/buyers/export-job';
import { findIdentifiers } from '@/lib/data/buyers/identifiers';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { DEMO_BUYER_EMAIL } from '@/lib/demo/data-market';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { LocalStorage } from '@/lib/platform/storage';
import type { Services } from '@/lib/services';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';
import { makeServices } from '../helpers/services';

/**
 * The demo's consented data as a data buyer gets it (lib/demo/data-market.ts), on every engine,
 * after migrations and the seed: every seeded record happened before it was received, and was
 * received in the past (an AI interaction's occurred_at, a UX session's start plus its duration);
 * so does every row of the files of every license the demo buyer holds, the one the seed bought
 * and one of AI interactions bought here, read from the Parquet and JSONL files they download;
 * the AI interactions are nearly all different conversations, and hold nothing a free sample
 * would mask, so the demo buyer's free samples show them whole, timestamps included.
 */

interface Row {
  record_id: string;
  received_at: Date;
  occurred_at?: Date | null;
  started_at?: Date | null;
  duration_seconds?: number;
  prompt?: string;
  response?: string;
}

/** What is wrong with a row's times, or nothing: it happened before it was received, and was received by `now`. */
function timesOutOfOrder(row: Row, now: Date): string[] {
  const received = row.received_at.getTime();
  const happened =
    row.started_at != null ? row.started_at.getTime() + Number(row.duration_seconds) * 1000 : row.occurred_at != null ? row.occurred_at.getTime() : NaN;
  const wrong: string[] = [];
  if (!(happened <= received)) wrong.push(`${row.record_id}: happened ${new Date(happened).toISOString()} after its receipt ${row.received_at.toISOString()}`);
  if (!(received <= now.getTime())) wrong.push(`${row.record_id}: received ${row.received_at.toISOString()}, after now ${now.toISOString()}`);
  return wrong;
}

for (const engine of testEngines()) {
  describe(`the demo's data records on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let dir: string;
    let services: Services;
    let buyer: { id: string; email: string; name: null };

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'demo-records-'));
      services = makeServices({ database: suite.db, storage: new LocalStorage(dir) });
      const [row] = await suite.db.query<{ id: string }>('select id from public.users where email = $1', [DEMO_BUYER_EMAIL]);
      buyer = { id: row!.id, email: DEMO_BUYER_EMAIL, name: null };
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('every seeded record happened a little before it was received, and was received in the past', async () => {
      const records = await rawAsService(suite.db, (q) =>
        q.query<{ record_id: string; kind: string; payload: Record<string, unknown>; received_at: Date; consented_at: Date; now: Date }>(
          `select r.record_id, r.kind, r.payload, r.received_at, c.consented_at, now() as now
           from public.data_records r join public.data_consents c on c.id = r.consent_id
           join public.users u on u.id = r.user_id
           where u.email in ('demo@example.com', 'demo2@example.com')`,
        ),
      );
      expect(records.length).toBeGreaterThan(150);
      expect(new Set(records.map((r) => r.kind))).toEqual(new Set(['ai_interaction', 'ux_session']));
      const wrong: string[] = [];
      const gaps: number[] = [];
      for (const r of records) {
        const p = r.payload;
        const row: Row =
          r.kind === 'ux_session'
            ? { record_id: r.record_id, received_at: r.received_at, started_at: new Date(String(p.started_at)), duration_seconds: Number(p.duration_seconds) }
            : { record_id: r.record_id, received_at: r.received_at, occurred_at: new Date(String(p.occurred_at)) };
        wrong.push(...timesOutOfOrder(row, r.now));
        const happened = row.started_at ? row.started_at.getTime() + row.duration_seconds! * 1000 : row.occurred_at!.getTime();
        gaps.push(r.received_at.getTime() - happened);
        // Consented before anything was shared.
        if ((row.started_at ?? row.occurred_at)!.getTime() < r.consented_at.getTime()) wrong.push(`${r.record_id}: before its consent`);
      }
      expect(wrong).toEqual([]);
      // A plausible delay: seconds to a few minutes, not hours.
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1_000);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(5 * 60_000);
    });

    it('the AI interactions are nearly all different conversations, with nothing a free sample would mask', async () => {
      const rows = await rawAsService(suite.db, (q) =>
        q.query<{ prompt: string; response: string }>(
          `select r.payload->>'prompt' as prompt, r.payload->>'response' as response
           from public.data_records r join public.users u on u.id = r.user_id
           where r.kind = 'ai_interaction' and u.email in ('demo@example.com', 'demo2@example.com')`,
        ),
      );
      expect(rows.length).toBeGreaterThan(120);
      const pairs = new Set(rows.map((r) => `${r.prompt}\n${r.response}`));
      expect(pairs.size / rows.length).toBeGreaterThanOrEqual(0.9);
      expect(new Set(rows.map((r) => r.prompt)).size / rows.length).toBeGreaterThanOrEqual(0.8);
      const flagged = rows.flatMap((r) => [r.prompt, r.response]).filter((text) => findIdentifiers(text).length > 0);
      expect(flagged).toEqual([]);
    });

    it("the demo buyer's free samples show the demo's records unmasked, their timestamps as they are", async () => {
      const views = new MemoryRateLimiter({ max: 1_000, windowSeconds: 3600 });
      for (const listing of ['ai_interactions', 'ux_sessions'] as const) {
        const sample = await listingSample(suite.db, views, buyer.id, listing, catalogFilter.parse({}), 100);
        if (!sample.ok) throw new Error(`no sample: ${sample.error}`);
        expect(sample.records.length, listing).toBeGreaterThan(0);
        for (const r of sample.records) {
          const data = r.data as Record<string, unknown>;
          expect(String(data[listing === 'ux_sessions' ? 'started_at' : 'occurred_at'])).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          expect(JSON.stringify(data)).not.toMatch(/\[(number|email|id|ip address|iban|street address|name)\]/);
        }
      }
    });

    it("every row of the demo buyer's files, Parquet and JSONL, happened before it was received, and was received in the past", async () => {
      // As a buyer would buy it: AI interactions of every app, 150 of them, from the demo buyer's
      // balance. This suite is about the rows, not the market's spread: three demo apps may fill it.
      await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set data_license_min_share_records = 1000000'));
      const bought = await buyLicense(suite.db, buyer.id, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({}),
        quantity: 150,
        exclusive: false,
        maxPriceMicro: 500_000_000,
      });
      if (!bought.ok) throw new Error(`the demo buyer's purchase was refused: ${bought.error}`);
      const secret = await services.exportSecret();
      expect(await runExports(suite.db, services.storage, secret)).toBeGreaterThanOrEqual(1);

      const licenses = await rawAsService(suite.db, (q) =>
        q.query<{ id: string; listing: string; records: number }>('select id, listing, records::int as records from public.data_licenses where buyer_id = $1', [
          buyer.id,
        ]),
      );
      expect(new Set(licenses.map((l) => l.listing))).toEqual(new Set(['ux_sessions', 'ai_interactions']));
      const cookie = await sessionCookie(buyer, services);
      const download = async (exportId: string, format: 'parquet' | 'jsonl') => {
        const url = new URL(downloadLink(secret, { exportId, format, userId: buyer.id }, services.now()), 'http://localhost:3000');
        const res = await downloadResponse(new Request(url, { headers: { cookie: `${cookie.name}=${cookie.value}` } }), { exportId, format }, services);
        expect(res.status).toBe(200);
        return new Uint8Array(await res.arrayBuffer());
      };
      const [{ now }] = (await suite.db.query<{ now: Date }>('select now() as now')) as [{ now: Date }];
      for (const license of licenses) {
        const current = await licenseExport(suite.db, buyer.id, license.id);
        expect(current, license.listing).toMatchObject({ status: 'done' });
        const parquet = (await parquetReadObjects({ file: (await download(current!.id, 'parquet')).buffer as ArrayBuffer })) as unknown as Row[];
        const jsonl = new TextDecoder()
          .decode(await download(current!.id, 'jsonl'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, string | number | null>)
          .map((l): Row => ({
            record_id: String(l.record_id),
            received_at: new Date(String(l.received_at)),
            occurred_at: l.occurred_at == null ? null : new Date(String(l.occurred_at)),
            started_at: l.started_at == null ? null : new Date(String(l.started_at)),
            duration_seconds: l.duration_seconds == null ? undefined : Number(l.duration_seconds),
            prompt: l.prompt == null ? undefined : String(l.prompt),
            response: l.response == null ? undefined : String(l.response),
          }));
        expect(parquet.length, license.listing).toBe(license.records);
        expect(jsonl.map((r) => r.record_id)).toEqual(parquet.map((r) => r.record_id));
        expect([...parquet, ...jsonl].flatMap((row) => timesOutOfOrder(row, now))).toEqual([]);
        if (license.listing === 'ai_interactions') {
          expect(parquet.length).toBe(150);
          expect(new Set(parquet.map((r) => `${r.prompt}\n${r.response}`)).size / parquet.length).toBeGreaterThanOrEqual(0.9);
        }
      }
    });
  });
}
