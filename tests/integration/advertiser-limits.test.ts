import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepStoredFiles } from '@/lib/ads/advertisers/files';
import { addCreativeForm, createCampaignForm, updateCreativeForm } from '@/lib/ads/advertisers/forms';
import { ADVERTISER_LIMITS } from '@/lib/ads/advertisers/schemas';
import { ACTIONS_PER_ACCOUNT, ACTIONS_PER_ACCOUNT_AND_ADDRESS, createActionLimiters, limitedAction } from '@/lib/platform/kit/action-limit';
import type { Queryable } from '@/lib/platform/db/engine';
import { LocalStorage, newObjectKey } from '@/lib/platform/storage';
import type { Services } from '@/lib/services';
import { newDraftAdvertiser } from '../helpers/advertisers';
import { makeServices } from '../helpers/services';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { png } from '../helpers/media-files';
import { rawAsService } from '../helpers/roles';
import { OPEN_CARD_TOP_UPS } from '@/lib/money/funds';

/**
 * What one free advertiser account can make the service store is bounded (issue 39; content/docs/
 * advertisers.md, Limits), on every engine. The attack's numbers redone: 25 edits of a 2 MB image
 * kept 26 files (51 MB) and now keep the current one, plus a file an approved ad may still show,
 * until the sweep a day later; campaigns stop at 100, creatives at 20 a campaign and 200 an
 * advertiser, stored bytes at 500 MB, card top-ups waiting for payment at 5; each with a message
 * that says which limit, and nothing written past it.
 */

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

const MB = 1024 * 1024;
/** A card image of 2 MB (the largest an image may be), different each time. */
const bigImage = (n: number) => new File([png(192, 108, { padding: 2 * MB - 200 - n }) as BlobPart], 'card.png', { type: 'image/png' });

function creativeForm(fields: Record<string, string>, image?: File): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({
    headline: 'Ship faster',
    body: 'Deploys in seconds.',
    cta: 'Try it',
    landing_url: 'https://advertiser.example/offer',
    ...fields,
  }))
    form.set(k, v);
  form.set('image', image ?? new File([], '', { type: 'application/octet-stream' }));
  return form;
}

function campaignForm(name: string): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name, starts_on: '2026-01-01', ends_on: '', lifetime_budget_usd: '100', daily_cap_usd: '', frequency_cap: '10' }))
    form.set(k, v);
  for (const f of ['sponsored_card', 'inline_text']) form.append('formats', f);
  return form;
}

for (const engine of testEngines()) {
  describe(`advertiser limits on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let dir: string;
    let storage: LocalStorage;
    let services: Services;
    let n = 0;
    const unique = () => `${Date.now().toString(36)}-${++n}`;
    const objects = async () => (await readdir(path.join(dir, 'objects')).catch(() => [])).sort();

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'monetize-limits-'));
      storage = new LocalStorage(dir);
      services = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), storage });
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** A new advertiser (profile through the console's form) and one draft campaign of theirs. */
    const advertiser = () => newDraftAdvertiser(suite.db, services, { label: 'Limits', formats: ['sponsored_card', 'inline_text'] });
    /** `count` campaigns (or creatives in `campaign`) written straight by the service: the triggers count them as any others. */
    const campaignsFor = (user: string, count: number) =>
      rawAsService(suite.db, (q) =>
        q.query(
          `insert into public.campaigns (advertiser_id, name, lifetime_budget_micro, formats, starts_at)
           select $1, 'Bulk ' || i, 100000000, array['sponsored_card', 'inline_text'], now() from generate_series(1, $2::int) i`,
          [user, count],
        ),
      );
    const creativesIn = (campaign: string, count: number) =>
      rawAsService(suite.db, (q) =>
        q.query(
          `insert into public.creatives (campaign_id, format, status, headline, landing_url)
           select $1, 'inline_text', 'in_review', 'Bulk ' || i, 'https://advertiser.example/' from generate_series(1, $2::int) i`,
          [campaign, count],
        ),
      );
    const countOf = (sql: string, params: unknown[]) => rawAsService(suite.db, (q) => one<number>(q, sql, params));

    it('keeps the current file of a creative edited 25 times with a 2 MB image, and a file an approved ad may show until the sweep a day later', async () => {
      const { user, campaign } = await advertiser();
      const before = await objects();
      const added = await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, bigImage(0)), user, services);
      expect(added.error).toBeUndefined();
      const id = added.id!;
      const t0 = Date.now();
      for (let i = 1; i <= 25; i++) {
        const saved = await updateCreativeForm(creativeForm({ id, format: 'sponsored_card', headline: `Edit ${i}` }, bigImage(i)), user, services);
        expect(saved.error).toBeUndefined();
      }
      const elapsed = Date.now() - t0;
      const current = async () =>
        (await rawAsService(suite.db, (q) => one<string>(q, 'select image_url as v from public.creatives where id = $1', [id]))).replace('/media/', '');
      // Never shown (an edit sends a creative to review, and none was approved): only the current file is kept.
      const mine = async () => (await objects()).filter((k) => !before.includes(k));
      expect(await mine()).toEqual([await current()]);
      expect(await countOf('select count(*)::int as v from public.creative_files where advertiser_id = $1', [user.id])).toBe(1);
      expect(elapsed).toBeLessThan(60_000);

      // Approved: ad decisions may now name its file, and may have sent it to pages. Replaced once
      // more, that file is kept, as a decision of the last 24 hours may name it.
      const shown = await current();
      await rawAsService(suite.db, (q) => q.query("update public.creatives set status = 'active', reviewed_at = now() where id = $1", [id]));
      const saved = await updateCreativeForm(creativeForm({ id, format: 'sponsored_card', headline: 'Edit 26' }, bigImage(26)), user, services);
      expect(saved.error).toBeUndefined();
      expect(await mine()).toEqual([shown, await current()].sort());
      await sweepStoredFiles(suite.db, storage);
      expect(await mine()).toEqual([shown, await current()].sort());

      // A day later no decision can name it: the sweep deletes it, and only the current file is left.
      await rawAsService(suite.db, (q) => q.query("update public.creative_files set released_at = now() - interval '25 hours' where key = $1", [shown]));
      await sweepStoredFiles(suite.db, storage);
      expect(await mine()).toEqual([await current()]);
      expect(await countOf('select count(*)::int as v from public.creative_files where advertiser_id = $1', [user.id])).toBe(1);
    });

    it('sweeps a stored file no table knows once it is an hour old, and leaves younger ones and other files alone', async () => {
      const old = newObjectKey('png');
      const young = newObjectKey('mp4');
      const exportFile = `export-${newObjectKey('jsonl').replace('.jsonl', '')}.jsonl`;
      for (const key of [old, young, exportFile]) await storage.put(key, new Uint8Array(10), 'application/octet-stream');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      for (const key of [old, exportFile]) await utimes(path.join(dir, 'objects', key), twoHoursAgo, twoHoursAgo);
      // A file reserved for an upload whose creative write never came is swept an hour later too.
      const { user } = await advertiser();
      const pending = newObjectKey('gif');
      await storage.put(pending, new Uint8Array(10), 'image/gif');
      await rawAsService(suite.db, (q) =>
        q.query("insert into public.creative_files (key, advertiser_id, bytes, stored_at) values ($1, $2, 10, now() - interval '2 hours')", [pending, user.id]),
      );
      const swept = await sweepStoredFiles(suite.db, storage);
      expect(swept.orphans).toBeGreaterThanOrEqual(1);
      expect(swept.files).toBeGreaterThanOrEqual(1);
      const left = await objects();
      expect(left).not.toContain(old);
      expect(left).not.toContain(pending);
      expect(left).toContain(young);
      expect(left).toContain(exportFile);
      await storage.delete(young);
      await storage.delete(exportFile);
    });

    it(`refuses an upload past ${ADVERTISER_LIMITS.storedBytes / MB} MB of stored files, says so, and stores nothing`, async () => {
      const { user, campaign } = await advertiser();
      // 499 MB already stored (a row the reservation counts as any other).
      await rawAsService(suite.db, (q) =>
        q.query('insert into public.creative_files (key, advertiser_id, bytes) values ($1, $2, $3)', [newObjectKey('mp4'), user.id, 499 * MB]),
      );
      const before = await objects();
      const state = await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, bigImage(0)), user, services);
      expect(state.error).toMatch(/499\.0 MB of the 500 MB an advertiser may keep/);
      expect(await objects()).toEqual(before);
      expect(await countOf('select count(*)::int as v from public.creatives where campaign_id = $1', [campaign])).toBe(0);
      // Words alone still go.
      expect((await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'inline_text', body: '' }), user, services)).error).toBeUndefined();
    });

    it(`stops campaign creation at ${ADVERTISER_LIMITS.campaigns} campaigns not completed, with a message, until one completes`, async () => {
      const { user } = await advertiser();
      await campaignsFor(user.id, ADVERTISER_LIMITS.campaigns - 2);
      expect((await createCampaignForm(campaignForm('The hundredth'), user, services)).error).toBeUndefined();
      const refused = await createCampaignForm(campaignForm('One too many'), user, services);
      expect(refused.error).toMatch(/You have 100 campaigns that are not completed, the most an advertiser may have/);
      expect(refused.values).toMatchObject({ name: 'One too many' });
      expect(await countOf('select count(*)::int as v from public.campaigns where advertiser_id = $1', [user.id])).toBe(100);
      await rawAsService(suite.db, (q) =>
        q.query(
          "update public.campaigns set status = 'completed', completed_at = now() where id = (select id from public.campaigns where advertiser_id = $1 and name = 'Bulk 1')",
          [user.id],
        ),
      );
      expect((await createCampaignForm(campaignForm('Room again'), user, services)).error).toBeUndefined();
    });

    it(`caps creatives at ${ADVERTISER_LIMITS.creativesPerCampaign} a campaign and ${ADVERTISER_LIMITS.creatives} an advertiser, with a message, storing nothing`, async () => {
      const { user, campaign } = await advertiser();
      await creativesIn(campaign, ADVERTISER_LIMITS.creativesPerCampaign - 1);
      expect((await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'inline_text', body: '' }), user, services)).error).toBeUndefined();
      const before = await objects();
      const full = await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, bigImage(0)), user, services);
      expect(full.error).toMatch(/This campaign has 20 creatives, the most a campaign may have/);
      expect(await objects()).toEqual(before);
      expect(await countOf('select count(*)::int as v from public.creatives where campaign_id = $1', [campaign])).toBe(20);

      // 200 in all: nine more campaigns of 20.
      await campaignsFor(user.id, 9);
      const others = await rawAsService(suite.db, (q) =>
        q.query<{ id: string }>("select id from public.campaigns where advertiser_id = $1 and name like 'Bulk %'", [user.id]),
      );
      for (const c of others) await creativesIn(c.id, ADVERTISER_LIMITS.creativesPerCampaign);
      const fresh = await createCampaignForm(campaignForm('Fresh'), user, services);
      const refused = await addCreativeForm(creativeForm({ campaign_id: fresh.id!, format: 'inline_text', body: '' }), user, services);
      expect(refused.error).toMatch(/Your campaigns that are not completed have 200 creatives/);
      expect(await countOf('select count(*)::int as v from public.creatives where campaign_id = $1', [fresh.id])).toBe(0);
    });

    it('refuses server actions past the budget of the account from one address, then from all, saying so and writing nothing', async () => {
      const { user } = await advertiser();
      // Budgets of this test's own (in memory: no Upstash here), as lib/services.ts makes them.
      const limited = makeServices({ database: suite.db, storage, actionLimits: createActionLimiters() });
      const from = (ip: string) => new Headers({ 'x-forwarded-for': ip });
      const create = (ip: string, name: string) => limitedAction(limited, user.id, from(ip), () => createCampaignForm(campaignForm(name), user, limited));
      const campaigns = () => countOf('select count(*)::int as v from public.campaigns where advertiser_id = $1', [user.id]);
      const start = await campaigns();
      for (let i = 0; i < ACTIONS_PER_ACCOUNT_AND_ADDRESS; i++) expect((await create('203.0.113.7', `Burst ${i}`)).error).toBeUndefined();
      const refused = await create('203.0.113.7', 'One too many');
      expect(refused.error).toMatch(/^You sent too many forms in a short time, so this one was not saved: wait \d+ seconds? and send it again\.$/);
      expect(await campaigns()).toBe(start + ACTIONS_PER_ACCOUNT_AND_ADDRESS);
      // Another address has its own budget, up to the account's.
      for (let i = ACTIONS_PER_ACCOUNT_AND_ADDRESS; i < ACTIONS_PER_ACCOUNT; i++) expect((await create('198.51.100.9', `Burst ${i}`)).error).toBeUndefined();
      expect((await create('192.0.2.33', 'From a third address')).error).toMatch(/too many forms/);
      expect(await campaigns()).toBe(start + ACTIONS_PER_ACCOUNT);
      // Another account from the first address is not held back by this one.
      const other = await advertiser();
      expect(
        (await limitedAction(limited, other.user.id, from('203.0.113.7'), () => createCampaignForm(campaignForm('Neighbour'), other.user, limited))).error,
      ).toBeUndefined();
    });

    it(`refuses a card top-up while ${OPEN_CARD_TOP_UPS} opened in the last day wait for payment`, async () => {
      const { user } = await advertiser();
      const refusal = () =>
        rawAsService(suite.db, (q) => one<{ error: string } | null>(q, 'select public.top_up_checkout_refusal($1, 50000000) as v', [user.id]));
      expect(await refusal()).toBeNull();
      // Five sessions opened as the console records them (public.top_up_open_checkout), none paid.
      for (let i = 0; i < 5; i++)
        await rawAsService(suite.db, (q) => q.query('select public.top_up_open_checkout($1, 50000000, $2)', [user.id, `cs_test_${unique()}`]));
      expect(await refusal()).toMatchObject({ ok: false, error: 'too_many_open_checkouts' });
      // Sessions a day old have expired at Stripe: they no longer count.
      // (The service may not move a request's time: the test's own connection does.)
      await suite.db.query("update public.top_ups set requested_at = now() - interval '25 hours' where user_id = $1", [user.id]);
      expect(await refusal()).toBeNull();
    });
  });
}
