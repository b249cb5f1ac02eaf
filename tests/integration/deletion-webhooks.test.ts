import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { createApp } from '@/lib/publisher/writes';
import { deletionNotices, saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense } from '@/lib/data/buyers/catalog';
import { scheduleExports } from '@/lib/data/buyers/export-job';
import { webhookRemoveForm, webhookRotateForm, webhookUrlForm } from '@/lib/data/buyers/forms';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { buyerWebhook, saveWebhookUrl, webhookDeliveries } from '@/lib/data/buyers/webhook-settings';
import { claimDeliveries, finishDelivery, runDeletionWebhooks, type WebhookNetwork } from '@/lib/data/buyers/webhooks';
import type { Queryable } from '@/lib/platform/db/engine';
import { LocalStorage } from '@/lib/platform/storage';
import { recordedConsentBody } from '@/lib/schemas/sdk';
import { readyToSell } from '../helpers/data-market';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsAnon, rawAsService, rawAsUser, runAs } from '../helpers/roles';
import { newKey, sdk } from '../helpers/sdk';
import { selfSignedCertificate, startReceiver, type ReceivedRequest, type Receiver, type TestCertificate } from '../helpers/webhook-receiver';
import { requestTopUp } from '@/lib/money/funds';
import { micro } from '@/lib/platform/kit/micro';

/**
 * Deletion notices delivered by signed webhook (migration 20261211000000_deletion_webhooks,
 * lib/data/buyers/webhooks.ts), on every engine: a withdrawal queues exactly one delivery per
 * buyer with a webhook, in its own transaction; the worker POSTs the notice, signed per the
 * Standard Webhooks scheme, to a receiver on 127.0.0.1 (reachable only because the test passes a
 * network that allows it); a failure is retried with the same webhook-id until a 2xx; two
 * workers send a delivery once; a worker that dies lets its lease run out and another delivers;
 * with the real guard a private address is refused and nothing is sent; the console sets,
 * rotates and removes the webhook, the secret shown once; and a buyer never reads or changes
 * another's webhook or deliveries.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const subject = (name: string) => createHash('sha256').update(name).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function form(entries: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(entries)) f.append(k, v);
  return f;
}

/** The receiver's check of a request, written here from the Standard Webhooks scheme (not with the code under test). */
function signedBy(secret: string, req: ReceivedRequest): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.body}`).digest('base64');
  return (req.headers['webhook-signature'] ?? '').split(' ').includes(`v1,${expected}`);
}

type DeliveryRow = {
  id: string;
  notice_id: string;
  buyer_id: string;
  webhook_id: string | null;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  due_in_s: number;
};

let tls: TestCertificate;
let receiver: Receiver;

beforeAll(async () => {
  tls = selfSignedCertificate();
  receiver = await startReceiver(tls);
});
afterAll(async () => {
  await receiver?.close();
});

for (const engine of testEngines()) {
  describe(`deletion notices by webhook on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const tag = `wh${Math.random().toString(36).slice(2, 8)}`;
    const HERE = [`${tag}-notes`];
    let app: { appId: string; key: string };
    let dataKey: Buffer;
    const proofs = new Map<string, string>();
    let n = 0;
    /** The test's network: 127.0.0.1 allowed, the receiver's certificate trusted. Production passes nothing. */
    const local = (): WebhookNetwork => ({ allowAddress: () => true, ca: tls.cert });
    const run = () => runDeletionWebhooks(suite.db, dataKey, { network: local() });
    /** The worker as the server runs it: no network given, so production's (public addresses only). */
    const runAsProduction = () => runDeletionWebhooks(suite.db, dataKey);

    const staff = async () => ({ sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' });
    /** A data buyer with 50 USD. */
    const buyer = async (company: string): Promise<SignedInUser> => {
      const email = `${tag}-${++n}@buyers.test`;
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [email, company]),
      );
      await saveBuyerProfile(suite.db, id, { company, intended_use: 'Evaluating assistants.', billing_email: email, country: 'FR', accept_terms: true });
      const asked = await requestTopUp(suite.db, id, micro(50_000_000), 'buyer');
      if (!asked.ok) throw new Error(asked.error);
      await runAs(suite.db, 'authenticated', await staff(), (q) => q.query("select public.staff_top_up_record($1, true, 'BANK')", [asked.value.id]));
      return { id, email, name: company };
    };
    /** Sets the buyer's webhook as the console does, but to any URL (the form would refuse 127.0.0.1); answers its secret. */
    const webhook = async (who: SignedInUser, url = receiver.url(who.id)) => {
      const saved = await saveWebhookUrl(suite.db, who.id, url, dataKey);
      if (!saved.ok || !saved.value.secret) throw new Error('no webhook');
      return saved.value.secret;
    };
    /** `count` AI interactions of subject `name`, through the SDK as an app sends them. */
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
        id: `${name}-${++n}-${i}`,
        data: { prompt: `Question ${i}`, response: 'Answer', model: 'demo-1' },
      }));
      const res = await sdk('/functions/v1/data', {
        body: { subject_id: s, kind: 'ai_interaction', records },
        headers: { 'x-api-key': app.key, 'x-consent-proof': proof },
      });
      expect(res.status, res.text).toBe(200);
    };
    /** A standard license of the `quantity` newest records of this suite's category. */
    const buy = async (who: SignedInUser, quantity: number) => {
      const bought = await buyLicense(suite.db, who.id, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({ categories: HERE }),
        quantity,
        exclusive: false,
        maxPriceMicro: 10_000_000,
      });
      if (!bought.ok) throw new Error(bought.error);
      return bought.value.license_id;
    };
    const withdraw = async (name: string) => {
      const res = await sdk(`/functions/v1/consents?subject_id=${subject(`${tag}-${name}`)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': app.key, 'x-consent-proof': proofs.get(name)! },
      });
      expect(res.status, res.text).toBe(200);
    };
    /** A subject's records, licensed by each of `buyers`, then withdrawn: one notice each. */
    const noticeFor = async (name: string, buyers: SignedInUser[], count = 3) => {
      await interactions(name, count);
      for (const b of buyers) await buy(b, count);
      await withdraw(name);
    };
    const deliveriesOf = (buyers: SignedInUser[]) =>
      rawAsService(suite.db, (q) =>
        q.query<DeliveryRow>(
          `select id, notice_id, buyer_id, webhook_id, status, attempts, last_status, last_error, delivered_at,
                  extract(epoch from next_attempt_at - now())::float8 as due_in_s
           from public.data_deletion_deliveries where buyer_id = any($1::uuid[]) order by created_at, id`,
          [buyers.map((b) => b.id)],
        ),
      );
    const sentTo = (who: SignedInUser) => receiver.received.filter((r) => r.path === `/hooks/${who.id}`);

    beforeAll(async () => {
      dataKey = await suite.services.dataKey();
      const made = await createApp(suite.db, suite.users.demo, { name: 'Webhooked', slug: `${tag}-app`, description: '', category: HERE, allowed_origins: [] });
      if (!made.ok) throw new Error(made.error);
      // Old enough, with real use: its records are for sale (public.data_apps_for_sale).
      await readyToSell(suite.db, made.value.id);
      app = { appId: made.value.id, key: (await newKey(suite.db, suite.users.demo, { appId: made.value.id })).key };
    });
    afterEach(async () => {
      // Each test sends only its own deliveries: what one left pending is closed here.
      await rawAsService(suite.db, (q) =>
        q.query("update public.data_deletion_deliveries set status = 'failed', leased_until = null where status = 'pending'"),
      );
      receiver.answers = [];
      receiver.fallback = 200;
      receiver.delayMs = 0;
    });

    it('a withdrawal queues exactly one delivery per buyer with a webhook, with its notice', async () => {
      const [hooked, twice, plain] = [await buyer('Hooked Co'), await buyer('Twice Co'), await buyer('Plain Co')];
      await webhook(hooked);
      await webhook(twice);
      await interactions('ann', 3);
      await buy(hooked, 3);
      // Two licenses of the same records: still one notice, and one delivery.
      await buy(twice, 3);
      await buy(twice, 3);
      await buy(plain, 3);
      expect(await deliveriesOf([hooked, twice, plain])).toEqual([]);
      await withdraw('ann');

      const rows = await deliveriesOf([hooked, twice, plain]);
      expect(rows.map((r) => r.buyer_id).sort()).toEqual([hooked.id, twice.id].sort());
      for (const r of rows) {
        expect(r).toMatchObject({ status: 'pending', attempts: 0, last_status: null, last_error: null, delivered_at: null });
        expect(r.due_in_s).toBeLessThanOrEqual(0);
        const [notice] = await deletionNotices(suite.db, r.buyer_id);
        expect(r.notice_id).toBe(notice!.id);
      }
      const [twiceNotice] = await deletionNotices(suite.db, twice.id);
      expect(twiceNotice!.license_ids).toHaveLength(2);
      // The buyer without a webhook has the notice in the console only; a webhook set afterwards is not sent it.
      expect(await deletionNotices(suite.db, plain.id)).toHaveLength(1);
      await webhook(plain);
      expect(await deliveriesOf([plain])).toEqual([]);
    });

    it('the worker POSTs the notice, signed per Standard Webhooks, with its record ids, once', async () => {
      const who = await buyer('Signed Co');
      const secret = await webhook(who);
      await noticeFor('bob', [who], 4);
      const [notice] = await deletionNotices(suite.db, who.id);
      const [delivery] = await deliveriesOf([who]);
      const before = Math.floor(Date.now() / 1000);

      expect(await run()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      const [req, ...more] = sentTo(who);
      expect(more).toEqual([]);
      expect(req!.method).toBe('POST');
      expect(req!.headers['content-type']).toBe('application/json');
      expect(req!.headers['webhook-id']).toBe(delivery!.id);
      const timestamp = Number(req!.headers['webhook-timestamp']);
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
      expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(signedBy(secret, req!)).toBe(true);
      // Any change to the body, the id or the timestamp breaks the signature.
      expect(signedBy(secret, { ...req!, body: req!.body.replace('"record_ids":["', '"record_ids":["0') })).toBe(false);
      expect(signedBy(secret, { ...req!, headers: { ...req!.headers, 'webhook-timestamp': String(timestamp + 1) } })).toBe(false);
      expect(JSON.parse(req!.body)).toEqual({
        type: 'data.deletion_notice',
        id: notice!.id,
        created_at: notice!.created_at.toISOString(),
        reason: 'consent_withdrawn',
        license_ids: notice!.license_ids,
        record_ids: notice!.record_ids,
      });
      expect(JSON.parse(req!.body).record_ids).toHaveLength(4);
      // Nothing of the secret leaves in the clear.
      expect(JSON.stringify(req)).not.toContain(secret.slice('whsec_'.length));

      const [done] = await deliveriesOf([who]);
      expect(done).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, last_error: null });
      expect(done!.delivered_at).not.toBeNull();
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      expect(sentTo(who)).toHaveLength(1);
    });

    it('an answer of 500 is retried after the backoff with the same webhook-id, and a 200 ends it delivered', async () => {
      const who = await buyer('Retry Co');
      const secret = await webhook(who);
      await noticeFor('cyd', [who]);
      receiver.answers = [500];

      expect(await run()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      const [first] = await deliveriesOf([who]);
      expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'Answered HTTP 500.' });
      // The first retry waits a minute: not due yet.
      expect(first!.due_in_s).toBeGreaterThan(50);
      expect(first!.due_in_s).toBeLessThanOrEqual(60);
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 0 });

      // The minute passes.
      await rawAsService(suite.db, (q) => q.query('update public.data_deletion_deliveries set next_attempt_at = now() where id = $1', [first!.id]));
      expect(await run()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      const sent = sentTo(who);
      expect(sent).toHaveLength(2);
      expect(sent.map((r) => r.headers['webhook-id'])).toEqual([first!.id, first!.id]);
      expect(sent.map((r) => r.body)).toEqual([sent[0]!.body, sent[0]!.body]);
      for (const r of sent) expect(signedBy(secret, r)).toBe(true);
      expect((await deliveriesOf([who]))[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200, last_error: null });
    });

    it('a redirect is not followed, and the attempts run out into failed', async () => {
      const who = await buyer('Redirect Co');
      await webhook(who);
      await noticeFor('dan', [who]);
      receiver.fallback = 302;
      const due = () => rawAsService(suite.db, (q) => q.query("update public.data_deletion_deliveries set next_attempt_at = now() where status = 'pending'"));
      for (let attempt = 1; attempt < 8; attempt++) {
        expect(await run()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
        await due();
      }
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 1 });
      expect(sentTo(who)).toHaveLength(8);
      expect((await deliveriesOf([who]))[0]).toMatchObject({
        status: 'failed',
        attempts: 8,
        last_status: 302,
        last_error: 'Answered HTTP 302 (redirects are not followed).',
      });
      await due();
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    });

    it('two workers racing send each delivery once', async () => {
      const buyers = [await buyer('Race A'), await buyer('Race B'), await buyer('Race C')];
      for (const b of buyers) await webhook(b);
      await noticeFor('eve', buyers);
      receiver.delayMs = 300;
      const [a, b] = await Promise.all([run(), run()]);
      expect(a.delivered + b.delivered).toBe(3);
      for (const who of buyers) expect(sentTo(who)).toHaveLength(1);
      const rows = await deliveriesOf(buyers);
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
      ]);
    });

    it('a worker that dies after claiming leaves its lease to run out, and another delivers', async () => {
      const who = await buyer('Lease Co');
      const secret = await webhook(who);
      await noticeFor('fay', [who]);
      // The first worker claims with a one-second lease, then dies.
      const [claimed, ...others] = await claimDeliveries(suite.db, 10, 1);
      expect(others).toEqual([]);
      expect(claimed!.attempts).toBe(1);
      // While the lease holds, no one else sends it.
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      expect(sentTo(who)).toEqual([]);
      await sleep(1_200);
      expect(await run()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      expect(sentTo(who)).toHaveLength(1);
      expect(signedBy(secret, sentTo(who)[0]!)).toBe(true);
      expect((await deliveriesOf([who]))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
      // The dead worker's late word changes nothing: the delivery is no longer its attempt.
      expect(await finishDelivery(suite.db, claimed!, { delivered: false, status: 500, error: 'Answered HTTP 500.' })).toBeNull();
      expect((await deliveriesOf([who]))[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
    });

    it('with the real guard, a private address is refused and recorded, and nothing is sent', async () => {
      const literal = await buyer('Loopback Co');
      const named = await buyer('Localhost Co');
      await webhook(literal);
      await webhook(named, `https://localhost:${receiver.port}/hooks/${named.id}`);
      await noticeFor('gus', [literal, named]);
      expect(await runAsProduction()).toEqual({ delivered: 0, retrying: 2, failed: 0 });
      expect(sentTo(literal)).toEqual([]);
      expect(sentTo(named)).toEqual([]);
      for (const r of await deliveriesOf([literal, named])) {
        expect(r).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_status: null,
          last_error: 'The webhook’s host is a private, loopback or link-local address: nothing was sent.',
        });
      }
    });

    it('the export job’s timer sends the due deliveries, with the real guard', async () => {
      const who = await buyer('Timer Co');
      await webhook(who);
      await noticeFor('kim', [who]);
      const dir = mkdtempSync(path.join(tmpdir(), 'webhook-exports-'));
      const job = scheduleExports(
        () => Promise.resolve(suite.db),
        new LocalStorage(dir),
        () => suite.services.exportSecret(),
        60_000,
        () => suite.services.dataKey(),
      );
      try {
        job.kick();
        let row: DeliveryRow | undefined;
        for (let i = 0; i < 100 && !row?.attempts; i++) {
          await sleep(100);
          [row] = await deliveriesOf([who]);
        }
        // The server passes no network: the receiver on 127.0.0.1 is refused, and nothing is sent.
        expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringContaining('private') });
        expect(sentTo(who)).toEqual([]);
      } finally {
        job.stop();
        // Let the run under way (the exports after the deliveries) end before the files go.
        await sleep(500);
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('the console sets the webhook with its secret shown once, replaces its URL, rotates the secret and removes it', async () => {
      const who = await buyer('Console Co');
      const services = suite.services;
      const refused = async (url: string) => (await webhookUrlForm(form({ url }), who, services)).error;
      expect(await refused('http://hooks.example.com/deletions')).toBe('A webhook URL must use https.');
      expect(await refused('https://127.0.0.1/hooks')).toMatch(/public host/);
      expect(await refused('https://[::1]/hooks')).toMatch(/public host/);
      expect(await refused('https://10.1.2.3/hooks')).toMatch(/public host/);
      expect(await refused('https://localhost/hooks')).toMatch(/public host/);
      expect(await refused('https://intranet/hooks')).toMatch(/public host/);
      expect(await refused('https://user:pw@hooks.example.com/')).toMatch(/user name or password/);
      expect(await refused(`https://hooks.example.com/${'a'.repeat(500)}`)).toMatch(/at most 500/);
      expect(await refused('not a url')).toMatch(/not a URL/);
      expect(await buyerWebhook(suite.db, who.id)).toBeNull();

      const set = await webhookUrlForm(form({ url: 'https://hooks.example.com/deletions' }), who, services);
      expect(set).toMatchObject({ notice: expect.stringContaining('shown only once'), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) });
      const shown = await buyerWebhook(suite.db, who.id);
      expect(shown).toMatchObject({ url: 'https://hooks.example.com/deletions', secret_hint: `whsec_…${set.secret!.slice(-4)}` });
      expect(JSON.stringify(shown)).not.toContain(set.secret!.slice(6, 20));
      // Stored sealed: the secret is nowhere in the row.
      const stored = await rawAsService(suite.db, (q) =>
        one<string>(q, 'select secret_ciphertext as v from public.data_buyer_webhooks where buyer_id = $1', [who.id]),
      );
      expect(stored).toMatch(/^v1\./);
      expect(stored).not.toContain(set.secret!.slice(6));

      // A new URL keeps the secret (none shown); the notice pending goes to it, signed with it.
      const replaced = await webhookUrlForm(form({ url: receiver.url(who.id) }), who, services);
      expect(replaced).toEqual({
        error: 'A webhook URL must name a public host: not a private, loopback or local address.',
        values: { url: receiver.url(who.id) },
      });
      await saveWebhookUrl(suite.db, who.id, receiver.url(who.id), dataKey);
      expect((await webhookUrlForm(form({ url: 'https://hooks.example.org/x' }), who, services)).secret).toBeUndefined();
      await saveWebhookUrl(suite.db, who.id, receiver.url(who.id), dataKey);
      expect((await buyerWebhook(suite.db, who.id))!.secret_hint).toBe(shown!.secret_hint);

      // Rotated: a new secret, shown once, signs from now on; the old one no longer verifies.
      const rotated = await webhookRotateForm(form({}), who, services);
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(set.secret);
      expect((await buyerWebhook(suite.db, who.id))!.secret_hint).toBe(`whsec_…${rotated.secret!.slice(-4)}`);
      await noticeFor('hal', [who]);
      expect(await run()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      const [req] = sentTo(who);
      expect(signedBy(rotated.secret!, req!)).toBe(true);
      expect(signedBy(set.secret!, req!)).toBe(false);
      const deliveries = await webhookDeliveries(suite.db, who.id);
      expect(deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: 1, last_status: 200 })]);

      // Removed: the notice waiting for it ends failed, saying why, and is never sent.
      receiver.answers = [503];
      await noticeFor('ida', [who]);
      expect(await run()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      expect(await webhookRemoveForm(form({}), who, services)).toEqual({
        notice: 'Webhook removed: the notice that was waiting for it is in the console only.',
      });
      expect(await buyerWebhook(suite.db, who.id)).toBeNull();
      const [latest] = await webhookDeliveries(suite.db, who.id);
      expect(latest).toMatchObject({ status: 'failed', attempts: 1, last_error: 'The webhook was removed before this notice was delivered.' });
      await rawAsService(suite.db, (q) => q.query('update public.data_deletion_deliveries set next_attempt_at = now() where buyer_id = $1', [who.id]));
      expect(await run()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      expect(sentTo(who)).toHaveLength(2);
      expect(await webhookRemoveForm(form({}), who, services)).toEqual({ error: 'You have no webhook: set its URL first.' });
      expect((await webhookRotateForm(form({}), who, services)).error).toBe('You have no webhook: set its URL first.');
      // Someone who is not a data buyer has no webhook to set.
      const stranger = { id: suite.users.demo2, email: 'demo2@example.com', name: null };
      expect((await webhookUrlForm(form({ url: 'https://hooks.example.com/x' }), stranger, services)).error).toBe('Set up your data buyer profile first.');
    });

    it('a buyer never reads or changes another buyer’s webhook or deliveries', async () => {
      const owner = await buyer('Owner Co');
      const other = await buyer('Other Co');
      await webhook(owner);
      await noticeFor('jon', [owner]);
      const [delivery] = await deliveriesOf([owner]);
      const as = <T>(who: SignedInUser, fn: (q: Queryable) => Promise<T>) => rawAsUser(suite.db, { sub: who.id }, fn);
      const attempt = async (fn: () => Promise<unknown>) =>
        fn().then(
          (rows) => ({ ok: true as const, rows }),
          (err: Error) => ({ ok: false as const, error: err.message }),
        );

      // Reading: nothing of the owner's, even asked for by id; the library answers the same.
      expect(await as(other, (q) => q.query('select id, buyer_id, url, secret_hint from public.data_buyer_webhooks'))).toEqual([]);
      expect(await as(other, (q) => q.query('select id from public.data_deletion_deliveries where id = $1', [delivery!.id]))).toEqual([]);
      expect(await buyerWebhook(suite.db, other.id)).toBeNull();
      expect(await webhookDeliveries(suite.db, other.id)).toEqual([]);
      expect(await as(owner, (q) => q.query('select id from public.data_deletion_deliveries'))).toHaveLength(1);
      // The sealed secret is not readable, even by its owner.
      expect(await attempt(() => as(owner, (q) => q.query('select secret_ciphertext from public.data_buyer_webhooks')))).toMatchObject({
        ok: false,
        error: expect.stringMatching(/permission denied/),
      });
      // Writing: no table write at all; the functions act on the caller's own webhook only.
      for (const statement of [
        ["update public.data_buyer_webhooks set url = 'https://evil.example.com/' where buyer_id = $1", [owner.id]],
        ['delete from public.data_buyer_webhooks where buyer_id = $1', [owner.id]],
        [
          "insert into public.data_buyer_webhooks (buyer_id, url, secret_ciphertext, secret_hint) values ($1, 'https://evil.example.com/', 'x', 'x')",
          [owner.id],
        ],
        ["update public.data_deletion_deliveries set status = 'delivered', delivered_at = now() where id = $1", [delivery!.id]],
        ['delete from public.data_deletion_deliveries where id = $1', [delivery!.id]],
      ] as const) {
        for (const who of [other, owner]) {
          const result = await attempt(() => as(who, (q) => q.query(statement[0], [...statement[1]])));
          expect(result, `${statement[0]} as ${who.name}`).toMatchObject({ ok: false, error: expect.stringMatching(/permission denied/) });
        }
      }
      const before = await rawAsService(suite.db, (q) =>
        one<string>(q, 'select secret_ciphertext as v from public.data_buyer_webhooks where buyer_id = $1', [owner.id]),
      );
      expect(await as(other, (q) => one(q, "select public.data_buyer_webhook_rotate('v1.x.y.z', 'whsec_…zzzz') as v"))).toEqual({
        ok: false,
        error: 'not_found',
      });
      expect(await as(other, (q) => one(q, 'select public.data_buyer_webhook_remove() as v'))).toEqual({ ok: false, error: 'not_found' });
      expect(
        await rawAsService(suite.db, (q) => one<string>(q, 'select secret_ciphertext as v from public.data_buyer_webhooks where buyer_id = $1', [owner.id])),
      ).toBe(before);
      expect((await deliveriesOf([owner]))[0]).toMatchObject({ status: 'pending', attempts: 0 });
      // Nobody signed in sees or calls anything of it.
      for (const sql of [
        'select id from public.data_buyer_webhooks',
        'select id from public.data_deletion_deliveries',
        'select public.data_buyer_webhook_remove()',
      ]) {
        const result = await attempt(() => rawAsAnon(suite.db, (q) => q.query(sql)));
        if (result.ok) expect(result.rows, sql).toEqual([]);
        else expect(result.error).toMatch(/permission denied/);
      }
    });
  });
}
