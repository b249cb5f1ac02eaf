import { describe, expect, it, vi } from 'vitest';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { tryConversationForm, updateCampaignForm } from '@/lib/ads/advertisers/forms';
import { log } from '@/lib/platform/log';
import type { SignedInUser } from '@/lib/identity/auth/users';
import type { Queryable } from '@/lib/platform/db/engine';
import { violatedConstraint } from '@/lib/platform/db/errors';
import { campaignsBody } from '@/lib/schemas/account';
import { campaignForm as campaignFormData, newDraftAdvertiser } from '../helpers/advertisers';
import { get } from '../helpers/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsUser, runAs } from '../helpers/roles';
import { handlersOf } from '../helpers/routes';
import { accessToken } from '../helpers/tokens';

/**
 * A campaign's context hints, excluded phrases and advertiser category (migration
 * 20261215000100_campaign_context), on every engine: written through the advertiser's form,
 * read back in the console, in `GET /api/v1/me/campaigns` and in the operator's review queue, and
 * held to their limits by the database as well as by the form.
 */

const campaignsRoute = handlersOf('/api/v1/me/campaigns');

/** The campaign form, buying inline text, with `extra` fields. */
const campaignForm = (name: string, extra: Record<string, string>) => campaignFormData(name, ['inline_text'], extra);

for (const engine of testEngines()) {
  describe(`a campaign's context on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    it('is saved from the form, one phrase per line or by commas, and read back by the console, the API and the review queue', async () => {
      const { user, campaign } = await newDraftAdvertiser(suite.db, suite.services, { label: 'Context', formats: ['inline_text'] });
      const saved = await updateCampaignForm(
        campaign,
        campaignForm('With context', {
          context_hints: 'meeting notes\n  Second   brain , notes app\nMeeting Notes',
          excluded_phrases: 'sticky notes',
          advertiser_category: 'software',
        }),
        user,
        suite.services,
      );
      expect(saved.error).toBeUndefined();

      const console = (await advertiserAccount(suite.db, user.id)).campaigns.find((c) => c.id === campaign)!;
      expect(console).toMatchObject({
        context_hints: ['meeting notes', 'Second brain', 'notes app'],
        excluded_phrases: ['sticky notes'],
        advertiser_category: 'software',
      });

      const token = await accessToken(user.id, { scopes: ['campaigns:read'] });
      const { res, body } = await get(campaignsRoute.GET, '/api/v1/me/campaigns', token);
      expect(res.status).toBe(200);
      const read = campaignsBody
        .strict()
        .parse(body)
        .campaigns.find((c) => c.id === campaign)!;
      expect(read).toMatchObject({
        context_hints: ['meeting notes', 'Second brain', 'notes app'],
        excluded_phrases: ['sticky notes'],
        advertiser_category: 'software',
      });

      // The operator sees all three at review.
      await rawAsUser(suite.db, { sub: user.id }, (q) =>
        q.query(
          "insert into public.creatives (campaign_id, format, headline, cta, landing_url) values ($1, 'inline_text', 'Notes', 'Try', 'https://example.com') returning id",
          [campaign],
        ),
      );
      await rawAsUser(suite.db, { sub: user.id }, (q) => q.query("update public.campaigns set status = 'in_review' where id = $1 returning id", [campaign]));
      const operator = await runAs(suite.db, 'service_role', undefined, (q: Queryable) =>
        q.query<{ id: string }>("select id from public.users where email = 'operator@example.com'"),
      );
      const [queue] = await runAs(suite.db, 'authenticated', { sub: operator[0]!.id, aal: 'aal2' }, (q) =>
        q.query<{
          queue: { campaigns: { id: string; context_hints: string[]; excluded_phrases: string[]; advertiser_category: string; time_zone: string }[] };
        }>('select public.staff_advertising_queue() as queue'),
      );
      // With the advertiser's time zone, in which the campaign's dates are days (the operator reads the days the advertiser chose).
      const [zone] = await runAs(suite.db, 'service_role', undefined, (q: Queryable) =>
        q.query<{ time_zone: string }>('select time_zone from public.advertiser_profiles where user_id = $1', [user.id]),
      );
      expect(queue!.queue.campaigns.find((c) => c.id === campaign)).toMatchObject({
        context_hints: ['meeting notes', 'Second brain', 'notes app'],
        excluded_phrases: ['sticky notes'],
        advertiser_category: 'software',
        time_zone: zone!.time_zone,
      });
    });

    it('refuses what would match nothing or is too much, in words, and saves nothing', async () => {
      const { user, campaign } = await newDraftAdvertiser(suite.db, suite.services, { label: 'Refused', formats: ['inline_text'] });
      const attempt = (extra: Record<string, string>) => updateCampaignForm(campaign, campaignForm('Refused', extra), user, suite.services);
      expect((await attempt({ context_hints: 'the, it' })).error).toMatch(/only common words/);
      expect((await attempt({ context_hints: 'one two three four five six' })).error).toMatch(/more than 5 words/);
      expect((await attempt({ context_hints: Array.from({ length: 21 }, (_, i) => `hint ${i}`).join('\n') })).error).toMatch(/At most 20 context hints/);
      expect((await attempt({ excluded_phrases: 'x'.repeat(61) })).error).toMatch(/at most 60 characters/);
      expect((await attempt({ advertiser_category: 'weapons' })).error).toMatch(/what kind of advertiser/);
      const kept = (await advertiserAccount(suite.db, user.id)).campaigns.find((c) => c.id === campaign)!;
      expect(kept).toMatchObject({ context_hints: [], excluded_phrases: [], advertiser_category: 'other' });
    });

    it('is held to its limits by the database too, whatever writes it', async () => {
      const { user, campaign } = await newDraftAdvertiser(suite.db, suite.services, { label: 'Database', formats: ['inline_text'] });
      const write = (set: string, value: unknown) =>
        rawAsUser(suite.db, { sub: user.id }, (q) => q.query(`update public.campaigns set ${set} = $2 where id = $1 returning id`, [campaign, value])).then(
          () => 'saved',
          (err: unknown) => violatedConstraint(err) ?? String(err),
        );
      expect(
        await write(
          'context_hints',
          Array.from({ length: 21 }, (_, i) => `h${i}`),
        ),
      ).toBe('campaigns_context_hints_fit');
      expect(await write('excluded_phrases', ['y'.repeat(61)])).toBe('campaigns_excluded_phrases_fit');
      expect(await write('context_hints', [' padded'])).toBe('campaigns_context_hints_fit');
      expect(await write('context_hints', ['ok', null])).toBe('campaigns_context_hints_fit');
      expect(await write('excluded_phrases', [null])).toBe('campaigns_excluded_phrases_fit');
      expect(await write('advertiser_category', 'weapons')).toBe('campaigns_advertiser_category_check');
      expect(await write('context_hints', ['meeting notes'])).toBe('saved');
    });

    describe('the "try a conversation" box', () => {
      const tried = (form: Record<string, string>, user: SignedInUser) => {
        const data = new FormData();
        for (const [k, v] of Object.entries(form)) data.set(k, v);
        return tryConversationForm(data, user, suite.services);
      };

      it("scores each of the advertiser's own campaigns, names the hints that matched, and keeps nothing of the text", async () => {
        const { user, campaign } = await newDraftAdvertiser(suite.db, suite.services, { label: 'Try', formats: ['inline_text'] });
        await updateCampaignForm(
          campaign,
          campaignForm('Notes app', { context_hints: 'meeting notes\nnotes app', excluded_phrases: 'sticky notes', advertiser_category: 'software' }),
          user,
          suite.services,
        );
        const other = await newDraftAdvertiser(suite.db, suite.services, { label: 'Other', formats: ['inline_text'] });
        const logged = [
          vi.spyOn(log, 'debug'),
          vi.spyOn(log, 'info'),
          vi.spyOn(log, 'warn'),
          vi.spyOn(log, 'error'),
          vi.spyOn(console, 'log'),
          vi.spyOn(console, 'error'),
        ];
        const canary = `canary-${Date.now()}`;
        const state = await tried({ earlier: `I run weekly 1:1s ${canary}`, latest: 'which notes app keeps meeting notes searchable?' }, user);
        expect(state.error).toBeUndefined();
        expect(state.tried).toEqual({
          sensitive: null,
          minRelevance: 0.3,
          campaigns: [
            { id: campaign, name: 'Notes app', status: 'draft', relevance: 0.91, matched: ['meeting notes', 'notes app'], excludedBy: null, reaches: true },
          ],
        });
        // Another advertiser's campaigns are not theirs to see.
        expect(state.tried!.campaigns.map((c) => c.id)).not.toContain(other.campaign);
        // The answer holds the advertiser's hints and figures, never the conversation.
        expect(JSON.stringify(state.tried)).not.toContain(canary);
        expect(JSON.stringify(logged.map((spy) => spy.mock.calls))).not.toContain(canary);
        for (const spy of logged) spy.mockRestore();

        expect((await tried({ latest: 'sticky notes or a notes app?' }, user)).tried!.campaigns[0]).toMatchObject({
          relevance: 0,
          excludedBy: 'sticky notes',
          reaches: false,
        });
        expect((await tried({ latest: 'what is the capital of Peru?' }, user)).tried!.campaigns[0]).toMatchObject({
          relevance: 0,
          matched: [],
          reaches: false,
        });
        expect((await tried({ latest: 'my chest hurts when I climb stairs, which notes app should I use' }, user)).tried!.sensitive).toBe('health');
      });

      it('refuses an empty conversation, and one longer than an ad request may carry', async () => {
        const { user } = await newDraftAdvertiser(suite.db, suite.services, { label: 'TryBad', formats: ['inline_text'] });
        expect((await tried({ latest: '  ' }, user)).error).toMatch(/Type what the user says/);
        expect((await tried({ earlier: 'a'.repeat(3000), latest: 'b'.repeat(1001) }, user)).error).toMatch(/At most 4,000 characters/);
      });
    });
  });
}
