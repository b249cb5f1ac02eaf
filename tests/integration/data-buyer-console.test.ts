import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionCookie } from '@/lib/identity/auth/signin';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { createApp } from '@/lib/publisher/writes';
import { buyerFunds, buyerLicense, deletionNotices } from '@/lib/data/buyers/account';
import { downloadResponse, licenseExport } from '@/lib/data/buyers/downloads';
import { runExports } from '@/lib/data/buyers/export-job';
import { acknowledgeForm, buyerProfileForm, downloadForm, licenseForm } from '@/lib/data/buyers/forms';
import { dataQueue } from '@/lib/ops/data';
import { dataLicenseReviewForm } from '@/lib/ops/forms';
import type { Queryable } from '@/lib/platform/db/engine';
import { LocalStorage } from '@/lib/platform/storage';
import { recordedConsentBody } from '@/lib/schemas/sdk';
import type { Services } from '@/lib/services';
import { readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, runAs } from '../helpers/roles';
import { makeServices } from '../helpers/services';
import { newKey, sdk } from '../helpers/sdk';
import { requestTopUp } from '@/lib/money/funds';
import { usdToMicro } from '@/lib/platform/kit/micro';

/**
 * The data buyer's console (app/dashboard/data) through its forms (lib/data/buyers/forms.ts) and
 * the operator's review of exclusive licenses (lib/ops/data.ts, lib/ops/forms.ts), on every
 * engine: a buyer becomes one by accepting the terms, quotes a license and buys it for the price
 * quoted (a price that changed since is refused, with the new quote), its export is started at
 * once and downloaded through a fresh link per click; too little money says so, with the way to
 * top up; an exclusive license waits in the operator's queue and is rejected (with a reason) or
 * approved; a deletion notice is acknowledged.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const subject = (name: string) => createHash('sha256').update(name).digest('hex');

function form(entries: Record<string, string | string[]>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) for (const value of Array.isArray(v) ? v : [v]) f.append(k, value);
  return f;
}

for (const engine of testEngines()) {
  describe(`the data buyer's console on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `dc${Math.random().toString(36).slice(2, 8)}`;
    const HERE = `${tag}-notes`;
    let dir: string;
    let services: Services;
    let kicks = 0;
    let app: { appId: string; key: string };
    const proofs = new Map<string, string>();
    let n = 0;

    const formServices = () => ({ ...services, exports: { kick: () => void kicks++ } });
    const operator = async (): Promise<SignedInUser> => ({
      id: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"),
      email: 'operator@example.com',
      name: null,
    });
    /** A new user who became a data buyer through the profile form, with `usd` credited. */
    const buyer = async (usd: number): Promise<SignedInUser> => {
      const email = `${tag}-${++n}@buyers.test`;
      const id = await rawAsService(suite.db, (q) => one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [email, 'B']));
      const user = { id, email, name: 'B' };
      const saved = await buyerProfileForm(
        form({ company: 'Console Co', intended_use: 'Evaluating support assistants.', billing_email: email, country: 'fr', accept_terms: 'on' }),
        user,
        services,
      );
      expect(saved).toEqual({ notice: 'Data buyer profile saved, and the data license terms accepted.' });
      if (usd > 0) {
        const asked = await requestTopUp(suite.db, id, usdToMicro(usd), 'buyer');
        if (!asked.ok) throw new Error(asked.error);
        const staff = await operator();
        await runAs(suite.db, 'authenticated', { sub: staff.id, aal: 'aal2' }, (q) =>
          q.query("select public.staff_top_up_record($1, true, 'BANK')", [asked.value.id]),
        );
      }
      return user;
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
        data: { prompt: `Question ${i}`, response: `Answer ${i}`, model: 'demo-1' },
      }));
      const res = await sdk('/functions/v1/data', {
        body: { subject_id: s, kind: 'ai_interaction', records },
        headers: { 'x-api-key': app.key, 'x-consent-proof': proof },
      });
      expect(res.status, res.text).toBe(200);
    };
    /** The quote and confirm forms' fields, as the listing page sends them. */
    const request = (quantity: string, more: Record<string, string> = {}) =>
      form({ listing: 'ai_interactions', categories: [HERE], from: '', to: '', models: [], quantity, ...more });

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'console-exports-'));
      services = makeServices({ database: suite.db, storage: new LocalStorage(dir) });
      const made = await createApp(suite.db, suite.users.demo, {
        name: 'Console notes',
        slug: `${tag}-app`,
        description: '',
        category: [HERE],
        allowed_origins: [],
      });
      if (!made.ok) throw new Error(made.error);
      app = { appId: made.value.id, key: (await newKey(suite.db, suite.users.demo, { appId: made.value.id })).key };
      // Old enough, with real use: its records are for sale (public.data_apps_for_sale).
      await readyToSell(suite.db, made.value.id);
      await interactions('ann', 6);
      await interactions('bob', 4);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('quotes, refuses a price that changed with the new quote, buys for the price quoted, and downloads through a new link', async () => {
      const user = await buyer(100);
      const quoted = await licenseForm(request('1,000'), user, formServices());
      expect(quoted.error).toMatch(/^Only 10 records/);

      const quote = await licenseForm(request('4', { step: 'quote' }), user, formServices());
      expect(quote.error).toBeUndefined();
      expect(quote.quote).toMatchObject({
        units: 4,
        unit_price_micro: 2_000,
        multiplier: 1,
        price_micro: 8_000,
        quantity: '4',
        exclusive: false,
        available_micro: 100_000_000,
        balance_after_micro: 100_000_000 - 8_000,
        breakdown: '4 rows × $0.002 = $0.01',
        price: '$0.01',
        balance_after: '$99.99',
      });
      expect(quote.values).toEqual({ quantity: '4', exclusive: '' });

      const before = kicks;
      const cheaper = await licenseForm(request('4', { step: 'buy', max_price_micro: '7999' }), user, formServices());
      expect(cheaper.error).toMatch(/^The price changed since you saw it/);
      expect(cheaper.quote?.price_micro).toBe(8_000);
      expect(cheaper.needsFunds).toBe(false);
      expect(kicks).toBe(before);

      const bought = await licenseForm(request('4', { step: 'buy', max_price_micro: '8000' }), user, formServices());
      expect(bought).toEqual({ id: expect.any(String), notice: 'License granted: its files are being written.' });
      expect(kicks).toBe(before + 1);
      expect(await buyerLicense(suite.db, user.id, bought.id!)).toMatchObject({ status: 'active', records: 4, price_micro: 8_000 });

      // Not written yet: no link. Written: a new link on each click, which downloads for this buyer.
      const early = await downloadForm(form({ license: bought.id!, format: 'parquet' }), user, services);
      expect(early.error).toMatch(/^The files are not written yet/);
      await runExports(suite.db, services.storage, await services.exportSecret());
      const current = await licenseExport(suite.db, user.id, bought.id!);
      expect(current?.status).toBe('done');
      const link = await downloadForm(form({ license: bought.id!, format: 'jsonl' }), user, services);
      expect(link.url).toMatch(new RegExp(`^/downloads/${current!.id}/jsonl\\?expires=\\d+&sig=`));
      const cookie = await sessionCookie(user, services);
      const res = await downloadResponse(
        new Request(new URL(link.url!, 'http://localhost:3000'), { headers: { cookie: `${cookie.name}=${cookie.value}` } }),
        { exportId: current!.id, format: 'jsonl' },
        services,
      );
      expect(res.status).toBe(200);
      expect((await res.text()).trim().split('\n')).toHaveLength(4);

      // Another buyer has no such license, whatever id they send.
      const other = await buyer(0);
      expect((await downloadForm(form({ license: bought.id!, format: 'jsonl' }), other, services)).error).toBe('There is no such license.');
    });

    it('says when the balance does not cover a quote, and links the refusal to the top-up', async () => {
      const user = await buyer(0);
      const quote = await licenseForm(request('2'), user, formServices());
      expect(quote.quote).toMatchObject({ price_micro: 4_000, available_micro: 0, balance_after_micro: -4_000 });
      const refused = await licenseForm(request('2', { step: 'buy', max_price_micro: '4000' }), user, formServices());
      expect(refused.error).toMatch(/^Your balance does not cover it/);
      expect(refused.needsFunds).toBe(true);
    });

    it('holds an exclusive license for the operator, who rejects it with a reason or approves it', async () => {
      const user = await buyer(100);
      const staff = await operator();
      const exclusive = { exclusive: 'on' };
      const quote = await licenseForm(request('2', exclusive), user, formServices());
      expect(quote.quote).toMatchObject({ multiplier: 3, price_micro: 12_000, breakdown: '2 rows × $0.002 × 3 (exclusive) = $0.01' });
      const first = await licenseForm(request('2', { ...exclusive, step: 'buy', max_price_micro: '12000' }), user, formServices());
      expect(first.notice).toBe('License requested: the operator reviews it.');
      expect(await buyerFunds(suite.db, user.id)).toEqual({ balance_micro: 100_000_000, reserved_micro: 12_000, available_micro: 100_000_000 - 12_000 });

      const queued = (await dataQueue(suite.db, staff)).licenses.find((l) => l.id === first.id);
      expect(queued).toEqual({
        id: first.id,
        listing: 'ai_interactions',
        filter: { categories: [HERE], from: null, to: null, models: [] },
        records: 2,
        bytes: expect.any(Number),
        price_micro: 12_000,
        requested_at: expect.any(Date),
        email: user.email,
        company: 'Console Co',
        intended_use: 'Evaluating support assistants.',
      });

      expect(await dataLicenseReviewForm(form({ id: first.id!, decision: 'reject', reason: '' }), staff, services)).toMatchObject({
        error: 'Say why it is rejected: the buyer reads it.',
      });
      expect(await dataLicenseReviewForm(form({ id: first.id!, decision: 'reject', reason: 'Intended use too vague' }), staff, services)).toEqual({
        notice: 'License rejected: nothing was charged.',
      });
      expect(await buyerLicense(suite.db, user.id, first.id!)).toMatchObject({ status: 'rejected', rejection_reason: 'Intended use too vague' });
      expect(await dataLicenseReviewForm(form({ id: first.id!, decision: 'approve' }), staff, services)).toMatchObject({
        error: 'That license is not waiting for review any more.',
      });

      const second = await licenseForm(request('2', { ...exclusive, step: 'buy', max_price_micro: '12000' }), user, formServices());
      const before = kicks;
      expect(await dataLicenseReviewForm(form({ id: second.id!, decision: 'approve' }), staff, formServices())).toEqual({
        notice: 'License approved: the buyer is charged and its files are being written.',
      });
      expect(kicks).toBe(before + 1);
      expect(await buyerLicense(suite.db, user.id, second.id!)).toMatchObject({ status: 'active' });
      expect(await buyerFunds(suite.db, user.id)).toEqual({ balance_micro: 100_000_000 - 12_000, reserved_micro: 0, available_micro: 100_000_000 - 12_000 });
    });

    it('acknowledges a deletion notice once the person behind the records withdrew', async () => {
      const user = await buyer(100);
      await interactions('cy', 2);
      const bought = await licenseForm(request('1', { step: 'buy', max_price_micro: '2000' }), user, formServices());
      expect(bought.id).toBeDefined();
      const res = await sdk(`/functions/v1/consents?subject_id=${subject(`${tag}-cy`)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': app.key, 'x-consent-proof': proofs.get('cy')! },
      });
      expect(res.status, res.text).toBe(200);
      const [notice] = await deletionNotices(suite.db, user.id);
      expect(notice).toMatchObject({ license_ids: [bought.id], acknowledged_at: null });
      expect(await acknowledgeForm(form({ id: notice!.id }), user, services)).toEqual({
        notice: 'Acknowledged: you confirmed that you deleted these records.',
      });
      expect((await deletionNotices(suite.db, user.id))[0]!.acknowledged_at).toBeInstanceOf(Date);
      // Nobody else acknowledges it.
      const other = await buyer(0);
      expect((await acknowledgeForm(form({ id: notice!.id }), other, services)).error).toBe('No such notice.');
    });
  });
}
