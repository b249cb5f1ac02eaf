import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '@/lib/publisher/writes';
import { acknowledgeNotice, buyerFunds, buyerLicense, buyerLicenses, deletionNotices, saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense, listingAvailability, listingSample, quoteLicense } from '@/lib/data/buyers/catalog';
import { catalogFilter, DATA_TERMS_VERSION, type ListingId } from '@/lib/data/buyers/schemas';
import { checkMoney } from '@/lib/money/ledger-check';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { recordedConsentBody } from '@/lib/schemas/sdk';
import { establishedPublisher, readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';
import { newKey, sdk } from '../helpers/sdk';
import { requestTopUp } from '@/lib/money/funds';
import { usdToMicro } from '@/lib/platform/kit/micro';

/**
 * Data buyers on the ledger (migration 20261209000000_data_buyers), on every engine: a buyer
 * quotes and buys a license of consented records from their balance, and the publishers whose
 * records it holds are credited their share in proportion, to the micro-dollar, in the same
 * transaction; a refused purchase (nothing matches, more than is available, too little money, a
 * price that changed) charges nothing and writes nothing; an exclusive license withholds its
 * records from everyone else and is charged only when the operator approves it; a subject's
 * withdrawal after a sale erases their records from every later license and gives each buyer that
 * licensed them exactly one deletion notice naming them; and a buyer reads only their own
 * licenses and notices, never a publisher's raw records.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const failedChecks = async (db: Engine) => (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);
const subject = (name: string) => createHash('sha256').update(name).digest('hex');
const filter = (input: Record<string, unknown> = {}) => catalogFilter.parse(input);
const unlimitedViews = () => new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 3600 });

for (const engine of testEngines()) {
  describe(`data buyers on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `bt${Math.random().toString(36).slice(2, 8)}`;
    /** The category of this suite's apps: counts and licenses see only their records. */
    const HERE = [`${tag}-notes`];
    const ELSEWHERE = [`${tag}-travel`];
    let n = 0;
    const apps: Record<'a' | 'b' | 'c', { appId: string; key: string; owner: string }> = {} as never;
    /** Each subject's consent proof, by app and name. */
    const proofs = new Map<string, string>();

    const staff = async () => ({
      sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"),
      aal: 'aal2',
    });
    const asStaff = async <T>(fn: (q: Queryable) => Promise<T>) => runAs(suite.db, 'authenticated', await staff(), fn);

    /** A signed-in data buyer who accepted the terms, with `fundsUsd` credited by a top-up the operator recorded. */
    const buyer = async (company: string, fundsUsd = 0) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${tag}-${++n}@buyers.test`, company]),
      );
      const saved = await saveBuyerProfile(suite.db, id, {
        company,
        intended_use: 'Training a support assistant on real questions.',
        billing_email: 'billing@buyers.test',
        country: 'DE',
        accept_terms: true,
      });
      expect(saved.ok).toBe(true);
      if (fundsUsd > 0) {
        const asked = await requestTopUp(suite.db, id, usdToMicro(fundsUsd), 'buyer');
        if (!asked.ok) throw new Error(asked.error);
        const paid = await asStaff((q) => one<{ ok: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-DATA') as v", [asked.value.id]));
        expect(paid.ok).toBe(true);
      }
      return id;
    };

    /** `count` AI interactions of subject `name` in app `app`, through the SDK as an app sends them. */
    const interactions = async (app: 'a' | 'b' | 'c', name: string, count: number, model = 'demo-1') => {
      const { key } = apps[app];
      const s = subject(`${tag}-${name}`);
      let proof = proofs.get(`${app}:${name}`);
      if (!proof) {
        const res = await sdk('/functions/v1/consents', {
          body: { subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' },
          headers: { 'x-api-key': key },
        });
        expect(res.status, res.text).toBe(200);
        proof = recordedConsentBody.parse(res.body).consent_proof;
        proofs.set(`${app}:${name}`, proof);
      }
      const records = Array.from({ length: count }, (_, i) => ({
        id: `${name}-${++n}-${i}`,
        data: { prompt: `How do I export my notes? Mail me at ${name}@example.com`, response: 'Use the export menu.', model },
      }));
      const res = await sdk('/functions/v1/data', {
        body: { subject_id: s, kind: 'ai_interaction', records },
        headers: { 'x-api-key': key, 'x-consent-proof': proof },
      });
      expect(res.status, res.text).toBe(200);
    };
    const withdraw = async (app: 'a' | 'b' | 'c', name: string) => {
      const res = await sdk(`/functions/v1/consents?subject_id=${subject(`${tag}-${name}`)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': apps[app].key, 'x-consent-proof': proofs.get(`${app}:${name}`)! },
      });
      expect(res.status, res.text).toBe(200);
      return res.body as { deleted_records: number };
    };
    /** What the sale credited, per account kind and user, from its one transaction. */
    const sale = (license: string) =>
      rawAsService(suite.db, (q) =>
        q.query<{ kind: string; user_id: string | null; app_id: string | null; micro: string }>(
          `select a.kind, a.user_id, p.app_id, p.amount_micro::text as micro
           from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
           join public.ledger_accounts a on a.id = p.account_id
           where t.kind = 'data_sale' and t.reference = $1 order by a.kind, p.amount_micro`,
          [license],
        ),
      );
    const licenseCount = () => rawAsService(suite.db, (q) => one<number>(q, 'select count(*)::int as v from public.data_licenses'));

    beforeAll(async () => {
      const made = async (owner: string, name: string, category: string[]) => {
        const app = await createApp(suite.db, owner, { name, slug: `${tag}-${name}`, description: '', category, allowed_origins: [] });
        if (!app.ok) throw new Error(app.error);
        const { key } = await newKey(suite.db, owner, { appId: app.value.id });
        // Old enough, with real use: its records are for sale (public.data_apps_for_sale).
        await readyToSell(suite.db, app.value.id);
        return { appId: app.value.id, key, owner };
      };
      apps.a = await made(suite.users.demo, 'notes-a', HERE);
      apps.b = await made(suite.users.demo2, 'notes-b', HERE);
      apps.c = await made(suite.users.demo2, 'trips-c', ELSEWHERE);
      // Publisher A: three people, two interactions each; publisher B: one person, two; elsewhere: four.
      for (const name of ['ann', 'bob', 'cy']) await interactions('a', name, 2);
      await interactions('b', 'dee', 2, 'demo-2');
      await interactions('c', 'eve', 2);
      await interactions('c', 'fay', 2);
    });

    it('a standard license is quoted, paid from the balance and split among the publishers to the micro-dollar', async () => {
      const buyer1 = await buyer('Standard Co', 100);
      const here = filter({ categories: HERE });
      expect(await listingAvailability(suite.db, buyer1, 'ai_interactions', here)).toMatchObject({ records: 8, exclusive_records: 8 });
      expect(await listingAvailability(suite.db, buyer1, 'ai_interactions', filter({ categories: HERE, models: ['demo-2'] }))).toMatchObject({
        records: 2,
      });
      // The sample: only records received before today (the day's pool, tests/integration/data-samples.test.ts), so none of these yet.
      expect(await listingSample(suite.db, unlimitedViews(), buyer1, 'ai_interactions', here, 100)).toEqual({ ok: true, day: expect.any(String), records: [] });

      const quote = await quoteLicense(suite.db, buyer1, { listing: 'ai_interactions', filter: here, quantity: 8, exclusive: false });
      expect(quote).toEqual({ ok: true, value: expect.objectContaining({ units: 8, unit_price_micro: 2000, multiplier: 1, price_micro: 16_000 }) });
      const bought = await buyLicense(suite.db, buyer1, { listing: 'ai_interactions', filter: here, quantity: 8, exclusive: false, maxPriceMicro: 16_000 });
      if (!bought.ok) throw new Error(bought.error);
      expect(bought.value).toMatchObject({ status: 'active', records: 8, price_micro: 16_000 });
      expect(await buyerFunds(suite.db, buyer1)).toEqual({ balance_micro: 100_000_000 - 16_000, reserved_micro: 0, available_micro: 100_000_000 - 16_000 });

      // 80% of 16,000 to the publishers: A contributed 6 of the 8 records, B 2.
      expect(await sale(bought.value.license_id)).toEqual([
        { kind: 'buyer', user_id: buyer1, app_id: null, micro: '-16000' },
        { kind: 'platform_fees', user_id: null, app_id: null, micro: '3200' },
        { kind: 'publisher', user_id: suite.users.demo2, app_id: apps.b.appId, micro: '3200' },
        { kind: 'publisher', user_id: suite.users.demo, app_id: apps.a.appId, micro: '9600' },
      ]);
      const license = await buyerLicense(suite.db, buyer1, bought.value.license_id);
      expect(license).toMatchObject({ listing: 'ai_interactions', exclusive: false, status: 'active', records: 8, terms_version: DATA_TERMS_VERSION });
      expect(license!.expires_at!.getTime() - license!.starts_at!.getTime()).toBe(365 * 24 * 3600 * 1000);
      expect(
        await rawAsService(suite.db, (q) => one<number>(q, 'select count(*)::int as v from public.data_license_records where license_id = $1', [license!.id])),
      ).toBe(8);
      // A standard license takes nothing from others: the same records are still on sale, but no longer exclusively.
      expect(await listingAvailability(suite.db, buyer1, 'ai_interactions', here)).toMatchObject({ records: 8, exclusive_records: 0 });
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('a purchase refused (nothing matches, more than is available, too little money, a new price) charges nothing and writes nothing', async () => {
      const poor = await buyer('Poor Co', 0);
      const rich = await buyer('Rich Co', 50);
      const licenses = await licenseCount();
      const buy = (who: string, listing: ListingId, f: Record<string, unknown>, quantity: number, maxPriceMicro = 1_000_000_000) =>
        buyLicense(suite.db, who, { listing, filter: filter(f), quantity, exclusive: false, maxPriceMicro });
      expect(await buy(rich, 'ai_interactions', { categories: [`${tag}-nothing`] }, 1)).toEqual({
        ok: false,
        error: expect.stringMatching(/^Nothing available matches/),
      });
      expect(await buy(rich, 'ai_interactions', { categories: HERE }, 9)).toEqual({ ok: false, error: expect.stringContaining('Only 8 records') });
      expect(await buy(rich, 'ux_sessions', { categories: HERE }, 1)).toEqual({ ok: false, error: expect.stringMatching(/^Nothing available/) });
      expect(await buy(poor, 'ai_interactions', { categories: HERE }, 1)).toEqual({
        ok: false,
        error: expect.stringMatching(/^Your balance does not cover it/),
      });
      expect(await buy(rich, 'ai_interactions', { categories: HERE }, 2, 3_999)).toEqual({ ok: false, error: expect.stringMatching(/^The price changed/) });
      expect(await buy(rich, 'ai_interactions', { categories: HERE }, 0)).toEqual({ ok: false, error: expect.stringMatching(/^Ask for a whole number/) });
      expect(await licenseCount()).toBe(licenses);
      expect(await buyerFunds(suite.db, rich)).toMatchObject({ balance_micro: 50_000_000 });
      expect(await buyerFunds(suite.db, poor)).toMatchObject({ balance_micro: 0 });
      // Someone who is not a data buyer is not one.
      expect(
        await buyLicense(suite.db, suite.users.demo, {
          listing: 'ai_interactions',
          filter: filter({ categories: HERE }),
          quantity: 1,
          exclusive: false,
          maxPriceMicro: 10_000,
        }),
      ).toEqual({
        ok: false,
        error: expect.stringContaining('data buyer profile'),
      });
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('an exclusive license withholds its records from everyone else, and is charged only when the operator approves it', async () => {
      /**
       * A license's claw-back window: none until it is charged, then from the charge for the
       * `data_clawback_days` in force (migration 20261213001200_clawback_window_per_license).
       */
      const clawbackWindow = (license: string) =>
        rawAsService(suite.db, (q) =>
          one<string>(
            q,
            `select case when l.clawback_until is null then 'none'
                         when l.clawback_until = t.occurred_at + make_interval(days => s.data_clawback_days) then 'from the charge'
                         else 'other' end as v
             from public.data_licenses l cross join public.pricing_settings s left join public.ledger_transactions t on t.id = l.transaction_id
             where l.id = $1`,
            [license],
          ),
        );
      const holder = await buyer('Exclusive Co', 50);
      const other = await buyer('Other Co', 50);
      const elsewhere = filter({ categories: ELSEWHERE });
      expect(await listingAvailability(suite.db, other, 'ai_interactions', elsewhere)).toMatchObject({ records: 4, exclusive_records: 4 });
      // Three times the price: 2 rows at $0.002, exclusive.
      const quote = await quoteLicense(suite.db, holder, { listing: 'ai_interactions', filter: elsewhere, quantity: 2, exclusive: true });
      expect(quote).toMatchObject({ ok: true, value: { multiplier: 3, price_micro: 12_000 } });
      const asked = await buyLicense(suite.db, holder, { listing: 'ai_interactions', filter: elsewhere, quantity: 2, exclusive: true, maxPriceMicro: 12_000 });
      if (!asked.ok) throw new Error(asked.error);
      expect(asked.value.status).toBe('pending_review');
      // Reserved, not charged; the two records are nobody else's now.
      expect(await buyerFunds(suite.db, holder)).toEqual({ balance_micro: 50_000_000, reserved_micro: 12_000, available_micro: 50_000_000 - 12_000 });
      expect(await sale(asked.value.license_id)).toEqual([]);
      expect(await clawbackWindow(asked.value.license_id)).toBe('none');
      expect(await listingAvailability(suite.db, other, 'ai_interactions', elsewhere)).toMatchObject({ records: 2, exclusive_records: 2 });
      expect(
        await buyLicense(suite.db, other, { listing: 'ai_interactions', filter: elsewhere, quantity: 3, exclusive: false, maxPriceMicro: 1_000_000 }),
      ).toMatchObject({
        ok: false,
        error: expect.stringContaining('Only 2 records'),
      });
      const held = await rawAsService(suite.db, (q) =>
        q.query<{ record_id: string }>('select record_id from public.data_license_records where license_id = $1', [asked.value.license_id]),
      );
      const taken = await buyLicense(suite.db, other, {
        listing: 'ai_interactions',
        filter: elsewhere,
        quantity: 2,
        exclusive: false,
        maxPriceMicro: 1_000_000,
      });
      if (!taken.ok) throw new Error(taken.error);
      const theirs = await rawAsService(suite.db, (q) =>
        q.query<{ record_id: string }>('select record_id from public.data_license_records where license_id = $1', [taken.value.license_id]),
      );
      expect(theirs.map((r) => r.record_id).filter((id) => held.some((h) => h.record_id === id))).toEqual([]);
      expect(await clawbackWindow(taken.value.license_id)).toBe('from the charge');

      // Only staff review; approved, it is charged at the price reserved and active for a year.
      await expect(
        rawAsUser(suite.db, { sub: holder }, (q) => q.query('select public.staff_data_license_review($1, true, null)', [asked.value.license_id])),
      ).rejects.toThrow(/staff only/);
      // A buyer on hold (card money taken back) is sold nothing, an exclusive license neither.
      await suite.db.query("insert into public.account_holds (user_id, cause) values ($1, 'dispute')", [holder]);
      expect(
        await asStaff((q) => one<{ ok: boolean; error: string }>(q, 'select public.staff_data_license_review($1, true, null) as v', [asked.value.license_id])),
      ).toEqual({ ok: false, error: 'account_on_hold' });
      expect(await sale(asked.value.license_id)).toEqual([]);
      await suite.db.query("update public.account_holds set released_at = now(), release_reason = 'settled' where user_id = $1", [holder]);
      const approved = await asStaff((q) =>
        one<{ ok: boolean; status: string }>(q, 'select public.staff_data_license_review($1, true, null) as v', [asked.value.license_id]),
      );
      expect(approved).toEqual({ ok: true, status: 'active' });
      expect(await buyerFunds(suite.db, holder)).toEqual({ balance_micro: 50_000_000 - 12_000, reserved_micro: 0, available_micro: 50_000_000 - 12_000 });
      expect((await sale(asked.value.license_id)).map((p) => [p.kind, p.micro])).toEqual([
        ['buyer', '-12000'],
        ['platform_fees', '2400'],
        ['publisher', '9600'],
      ]);
      // The approval is its sale: its claw-back window counts from it.
      expect(await clawbackWindow(asked.value.license_id)).toBe('from the charge');
      expect(await listingAvailability(suite.db, other, 'ai_interactions', elsewhere)).toMatchObject({ records: 2, exclusive_records: 0 });

      // Rejected: released, nothing charged, the reason kept.
      await interactions('c', 'gus', 1);
      const again = await buyLicense(suite.db, other, { listing: 'ai_interactions', filter: elsewhere, quantity: 1, exclusive: true, maxPriceMicro: 6_000 });
      if (!again.ok) throw new Error(again.error);
      expect(await listingAvailability(suite.db, holder, 'ai_interactions', elsewhere)).toMatchObject({ records: 2 });
      const rejected = await asStaff((q) =>
        one<{ ok: boolean; status: string }>(q, "select public.staff_data_license_review($1, false, 'Not for this use') as v", [again.value.license_id]),
      );
      expect(rejected).toEqual({ ok: true, status: 'rejected' });
      expect(await buyerLicense(suite.db, other, again.value.license_id)).toMatchObject({ status: 'rejected', rejection_reason: 'Not for this use' });
      expect(await sale(again.value.license_id)).toEqual([]);
      expect(await clawbackWindow(again.value.license_id)).toBe('none');
      expect(await listingAvailability(suite.db, holder, 'ai_interactions', elsewhere)).toMatchObject({ records: 3, exclusive_records: 1 });
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('a withdrawal after a sale erases the records and gives each buyer that licensed them one notice naming them', async () => {
      const first = await buyer('First Buyer', 50);
      const second = await buyer('Second Buyer', 50);
      const bystander = await buyer('Bystander', 50);
      await interactions('a', 'hal', 2);
      const here = filter({ categories: HERE });
      const available = (await listingAvailability(suite.db, first, 'ai_interactions', here)).records;
      for (const who of [first, second]) {
        const quote = await quoteLicense(suite.db, who, { listing: 'ai_interactions', filter: here, quantity: available, exclusive: false });
        if (!quote.ok) throw new Error(quote.error);
        const bought = await buyLicense(suite.db, who, {
          listing: 'ai_interactions',
          filter: here,
          quantity: available,
          exclusive: false,
          maxPriceMicro: quote.value.price_micro,
        });
        expect(bought.ok).toBe(true);
      }
      const hal = await rawAsService(suite.db, (q) =>
        q.query<{ id: string }>(
          'select id from public.data_records where app_id = $1 and subject_hash in (select subject_hash from public.data_consents where app_id = $1 order by seq desc limit 1) order by id',
          [apps.a.appId],
        ),
      );
      expect(hal).toHaveLength(2);
      const earnedBefore = await rawAsService(suite.db, (q) =>
        one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [suite.users.demo]),
      );

      expect(await withdraw('a', 'hal')).toMatchObject({ deleted_records: 2 });
      for (const who of [first, second]) {
        const notices = await deletionNotices(suite.db, who);
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatchObject({ reason: 'consent_withdrawn', record_ids: hal.map((r) => r.id).sort(), acknowledged_at: null });
        expect(notices[0]!.license_ids).toHaveLength(1);
      }
      expect(await deletionNotices(suite.db, bystander)).toEqual([]);
      // Gone from every later count, sample and license. Withdrawn within 30 days of the sales:
      // each buyer is refunded 2 records' price, $0.004, of which the publisher gives back 80%.
      expect((await listingAvailability(suite.db, first, 'ai_interactions', here)).records).toBe(available - 2);
      expect(await rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [suite.users.demo]))).toBe(
        String(BigInt(earnedBefore) - 2n * 3_200n),
      );
      for (const who of [first, second]) {
        expect(await buyerFunds(suite.db, who)).toMatchObject({ balance_micro: 50_000_000 - available * 2_000 + 4_000 });
      }
      const later = await buyLicense(suite.db, bystander, {
        listing: 'ai_interactions',
        filter: here,
        quantity: available - 2,
        exclusive: false,
        maxPriceMicro: 1_000_000,
      });
      if (!later.ok) throw new Error(later.error);
      const covered = await rawAsService(suite.db, (q) =>
        q.query<{ record_id: string }>('select record_id from public.data_license_records where license_id = $1', [later.value.license_id]),
      );
      expect(covered.filter((c) => hal.some((h) => h.id === c.record_id))).toEqual([]);

      // Acknowledged once, by its buyer only.
      const [notice] = await deletionNotices(suite.db, first);
      expect(await acknowledgeNotice(suite.db, second, notice!.id)).toEqual({ ok: false, error: 'No such notice.' });
      const acked = await acknowledgeNotice(suite.db, first, notice!.id);
      expect(acked.ok).toBe(true);
      expect(await acknowledgeNotice(suite.db, first, notice!.id)).toEqual(acked);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('a buyer reads only their own licenses and notices, and no publisher data outside a license', async () => {
      const mine = await buyer('Mine Co', 50);
      const theirs = await buyer('Theirs Co', 50);
      const bought = await buyLicense(suite.db, theirs, {
        listing: 'ai_interactions',
        filter: filter({ categories: HERE }),
        quantity: 1,
        exclusive: false,
        maxPriceMicro: 2_000,
      });
      if (!bought.ok) throw new Error(bought.error);
      expect(await buyerLicense(suite.db, mine, bought.value.license_id)).toBeNull();
      expect(await buyerLicenses(suite.db, mine)).toEqual([]);
      expect((await buyerLicenses(suite.db, theirs)).map((l) => l.id)).toEqual([bought.value.license_id]);
      await rawAsUser(suite.db, { sub: mine }, async (q) => {
        expect(await q.query('select * from public.data_licenses')).toEqual([]);
        expect(await q.query('select * from public.data_deletion_notices')).toEqual([]);
      });
      // Closed to them, or open to a publisher for their own apps' rows only: none of them.
      for (const table of ['data_records', 'data_license_records', 'data_catalog_counts', 'data_consents']) {
        const read = await rawAsUser(suite.db, { sub: mine }, (q) => q.query(`select * from public.${table} limit 1`)).then(
          (rows) => rows,
          (err: Error) => err.message,
        );
        if (typeof read === 'string') expect(read, table).toMatch(/permission denied/);
        else expect(read, table).toEqual([]);
      }
      // Nor can a buyer call what is the SDK's or the service's.
      await expect(rawAsUser(suite.db, { sub: mine }, (q) => q.query("select public.data_records_erase('x', null, 'consent_withdrawn')"))).rejects.toThrow(
        /permission denied/,
      );
      await expect(rawAsUser(suite.db, { sub: mine }, (q) => q.query('select public.data_licenses_advance(now())'))).rejects.toThrow(/permission denied/);
    });

    it("a new publisher's made-up subjects are not for sale, and an app that stuffs the market gets at most its cap of a license", async () => {
      // Ten publishers that have sold for a while, ten records each, in a category of their own.
      const STUFFED = [`${tag}-stuffed`];
      for (let i = 0; i < 10; i++) await establishedPublisher(suite.db, `${tag}-honest-${i}`, STUFFED, 10);
      // A new account, with only its app's publishable key: 4 subjects, 200 records, in seconds.
      const fresh = await rawAsService(suite.db, (q) =>
        one<string>(q, "insert into public.users (email, name) values ($1, 'Stuffer') returning id as v", [`${tag}-stuffer@sellers.test`]),
      );
      const app = await createApp(suite.db, fresh, { name: 'Stuffer', slug: `${tag}-stuffer`, description: '', category: STUFFED, allowed_origins: [] });
      if (!app.ok) throw new Error(app.error);
      const { key } = await newKey(suite.db, fresh, { appId: app.value.id });
      const madeUp: { subject: string; proof: string }[] = [];
      for (let p = 0; p < 4; p++) {
        const s = subject(`${tag}-made-up-${p}`);
        const consent = await sdk('/functions/v1/consents', {
          body: { subject_id: s, purposes: ['ai_interactions'], policy_version: 'v1' },
          headers: { 'x-api-key': key },
        });
        expect(consent.status, consent.text).toBe(200);
        const proof = recordedConsentBody.parse(consent.body).consent_proof;
        madeUp.push({ subject: s, proof });
        const records = Array.from({ length: 50 }, (_, i) => ({ id: `made-up-${p}-${i}`, data: { prompt: `Question ${i}`, response: 'Answer.' } }));
        const sent = await sdk('/functions/v1/data', {
          body: { subject_id: s, kind: 'ai_interaction', records },
          headers: { 'x-api-key': key, 'x-consent-proof': proof },
        });
        expect(sent.status, sent.text).toBe(200);
      }
      const stuffed = filter({ categories: STUFFED });
      const fromStuffer = (license: string) =>
        rawAsService(suite.db, (q) =>
          one<number>(q, 'select count(*)::int as v from public.data_license_records where license_id = $1 and app_id = $2', [license, app.value.id]),
        );
      const buyHundred = async (who: string) => {
        const bought = await buyLicense(suite.db, who, {
          listing: 'ai_interactions',
          filter: stuffed,
          quantity: 100,
          exclusive: false,
          maxPriceMicro: 200_000,
        });
        if (!bought.ok) throw new Error(bought.error);
        expect(bought.value).toMatchObject({ records: 100, price_micro: 200_000 });
        return bought.value.license_id;
      };

      // New: none of it is counted, sampled or sold.
      const first = await buyer('Next Buyer Co', 100);
      expect(await listingAvailability(suite.db, first, 'ai_interactions', stuffed)).toMatchObject({ records: 100 });
      const license = await buyHundred(first);
      expect(await fromStuffer(license)).toBe(0);

      // Aged, with ad impressions: its records sell, but never more than an app's cap (5%, at least 10 records).
      await readyToSell(suite.db, app.value.id);
      const second = await buyer('Second Buyer Co', 100);
      expect(await listingAvailability(suite.db, second, 'ai_interactions', stuffed)).toMatchObject({ records: 300 });
      // More than the caps can spread is refused, with the most they can, and nothing charged.
      const licenses = await licenseCount();
      expect(
        await buyLicense(suite.db, second, { listing: 'ai_interactions', filter: stuffed, quantity: 111, exclusive: false, maxPriceMicro: 1_000_000 }),
      ).toEqual({ ok: false, error: expect.stringContaining('At most 110 records') });
      expect(await licenseCount()).toBe(licenses);
      const capped = await buyHundred(second);
      // Eleven publishers take turns (ten records each at most): 9 or 10 of the 100 are its.
      const sold = await fromStuffer(capped);
      expect(sold).toBeGreaterThanOrEqual(9);
      expect(sold).toBeLessThanOrEqual(10);
      expect(await failedChecks(suite.db)).toEqual([]);

      // The publisher withdraws its subjects: the buyer is refunded the withdrawn records' price,
      // taken back from the publisher's 80% and the platform's 20%, in one transaction per license,
      // once however often, and however concurrently, the withdrawal is sent.
      const earnedBefore = await rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [fresh]));
      expect(earnedBefore).toBe(String(sold * 1_600));
      const withdrawAll = () =>
        Promise.all(
          madeUp.map(({ subject: s, proof }) =>
            sdk(`/functions/v1/consents?subject_id=${s}`, { method: 'DELETE', headers: { 'x-api-key': key, 'x-consent-proof': proof } }),
          ),
        );
      const [once, twice] = await Promise.all([withdrawAll(), withdrawAll()]);
      expect([...once!, ...twice!].filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(4);
      await withdrawAll();
      const clawbacks = await rawAsService(suite.db, (q) =>
        q.query<{ kind: string; user_id: string | null; app_id: string | null; micro: string }>(
          `select a.kind, a.user_id, p.app_id, sum(p.amount_micro)::text as micro
           from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
           join public.ledger_accounts a on a.id = p.account_id
           where t.kind = 'data_clawback' and split_part(t.reference, ':', 1) = $1 group by 1, 2, 3 order by 1`,
          [capped],
        ),
      );
      // Its records of the 100, at $0.002 each, back to the buyer.
      expect(clawbacks).toEqual([
        { kind: 'buyer', user_id: second, app_id: null, micro: String(sold * 2_000) },
        { kind: 'platform_fees', user_id: null, app_id: null, micro: String(-sold * 400) },
        { kind: 'publisher', user_id: fresh, app_id: app.value.id, micro: String(-sold * 1_600) },
      ]);
      expect(await buyerFunds(suite.db, second)).toMatchObject({ balance_micro: 100_000_000 - 200_000 + sold * 2_000 });
      expect(await rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [fresh]))).toBe('0');
      // The first license held none of it: nothing back.
      expect(
        await rawAsService(suite.db, (q) =>
          one<number>(q, "select count(*)::int as v from public.ledger_transactions where kind = 'data_clawback' and split_part(reference, ':', 1) = $1", [
            license,
          ]),
        ),
      ).toBe(0);
      expect((await deletionNotices(suite.db, second)).length).toBeGreaterThan(0);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    // Last: it moves every license of this database past its term.
    it('past its term a license expires and an exclusive one releases its records', async () => {
      const holder = await buyer('Term Co', 50);
      await interactions('c', 'ivy', 1);
      const elsewhere = filter({ categories: ELSEWHERE });
      const exclusive = await buyLicense(suite.db, holder, {
        listing: 'ai_interactions',
        filter: elsewhere,
        quantity: 1,
        exclusive: true,
        maxPriceMicro: 6_000,
      });
      if (!exclusive.ok) throw new Error(exclusive.error);
      await asStaff((q) => q.query('select public.staff_data_license_review($1, true, null)', [exclusive.value.license_id]));
      // Another asks for one and nobody reviews it.
      const waiting = await buyer('Waiting Co', 50);
      await interactions('c', 'jay', 1);
      const unreviewed = await buyLicense(suite.db, waiting, {
        listing: 'ai_interactions',
        filter: elsewhere,
        quantity: 1,
        exclusive: true,
        maxPriceMicro: 6_000,
      });
      if (!unreviewed.ok) throw new Error(unreviewed.error);
      expect(await buyerFunds(suite.db, waiting)).toMatchObject({ reserved_micro: 6_000 });
      const before = await listingAvailability(suite.db, holder, 'ai_interactions', elsewhere);
      const advanced = await rawAsService(suite.db, (q) =>
        one<{ expired_licenses: number; released_records: number }>(q, "select public.data_licenses_advance(now() + interval '366 days') as v"),
      );
      expect(advanced.released_records).toBeGreaterThanOrEqual(1);
      expect(await buyerLicense(suite.db, holder, exclusive.value.license_id)).toMatchObject({ status: 'expired' });
      expect(await buyerLicense(suite.db, waiting, unreviewed.value.license_id)).toMatchObject({
        status: 'rejected',
        rejection_reason: expect.stringContaining('within 30 days'),
      });
      expect(await buyerFunds(suite.db, waiting)).toEqual({ balance_micro: 50_000_000, reserved_micro: 0, available_micro: 50_000_000 });
      expect((await listingAvailability(suite.db, holder, 'ai_interactions', elsewhere)).records).toBe(before.records + advanced.released_records);
      expect(await failedChecks(suite.db)).toEqual([]);
    });
  });
}
