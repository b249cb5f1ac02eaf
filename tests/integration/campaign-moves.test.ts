import { describe, expect, it } from 'vitest';
import { advertiserAccount, advertiserCampaign, moveCampaign } from '../../lib/ads/advertisers/account';
import { CAMPAIGN_MOVES, type CampaignMove } from '../../lib/ads/advertisers/schemas';
import type { Queryable } from '../../lib/platform/db/engine';
import { CAMPAIGN_STATUSES, PAUSE_REASONS } from '../../lib/schemas/advertising';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';

/**
 * An advertiser's campaign moves have one judge (migration 20261214000200_campaign_moves): the
 * trigger public.campaigns_guard. The console asks public.campaign_move and says its answer; it
 * holds no list of which status each move starts from. On every engine: every move from every
 * status answers what the console answered when it held that list (same words), the moves it
 * makes leave the status the trigger gives, and the move names are the same on both sides.
 *
 * Which moves are open from a status is said once, by public.campaign_moves_open (migration
 * 20261214002000_campaign_moves_open): the trigger refuses the others, and the console's campaign
 * reads answer it with each campaign, for its buttons. On every engine, from every status and
 * pause reason, it lists exactly the moves public.campaign_move accepts, and the reads answer it.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const cannot = (move: CampaignMove) => `The campaign cannot ${move} now.`;
const NOT_THEIRS = 'The campaign cannot make that move now: the page shows what it can do.';
const NEEDS_CREATIVE = 'Add at least one creative before sending the campaign to review.';

/** Where a campaign starts, as the service writes it: a status (a pause with its reason), a creative or not, started or not. */
type Start = { status: string; pause?: string; creative?: boolean; future?: boolean };

let made = 0;

for (const engine of testEngines()) {
  describe(`campaign moves on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    const staff = async () => ({ sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"), aal: 'aal2' });

    /** A new advertiser with a profile and `usd` credited by a manual top-up the operator recorded. */
    const advertiser = async (usd: number) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`moves-${++made}-${process.pid}@moves.test`, 'Moves Co']),
      );
      await rawAsUser(suite.db, { sub: id }, (q) =>
        q.query(
          `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
           values ($1, 'Moves Co', 'Moves Co', 'billing@moves.test', '1 Test Street', 'GB')`,
          [id],
        ),
      );
      if (usd > 0) {
        const asked = await rawAsUser(suite.db, { sub: id }, (q) => one<{ top_up_id: string }>(q, 'select public.top_up_request($1) as v', [usd * 1_000_000]));
        const paid = await runAs(suite.db, 'authenticated', await staff(), (q) =>
          one<{ ok: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-REF-MOVES') as v", [asked.top_up_id]),
        );
        expect(paid.ok).toBe(true);
      }
      return id;
    };

    /** A campaign of `owner`'s in the state `start` says, written by the service (the trigger judges the advertiser's writes only). */
    const campaign = (owner: string, start: Start) =>
      rawAsService(suite.db, async (q) => {
        const id = await one<string>(
          q,
          `insert into public.campaigns (advertiser_id, name, status, pause_reason, rejection_reason, lifetime_budget_micro, formats, starts_at)
           values ($1, 'Move me', $2, $3, $4, 100000000, '{inline_text}', now() + case when $5 then interval '10 days' else interval '-1 day' end)
           returning id as v`,
          [owner, start.status, start.pause ?? null, start.status === 'rejected' ? 'Not for this network' : null, start.future ?? false],
        );
        if (start.creative ?? true) {
          await q.query(
            "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'Move', 'https://moves.example/')",
            [id],
          );
        }
        return id;
      });
    const status = (id: string) =>
      rawAsService(suite.db, (q) => one<string>(q, "select status || coalesce(':' || pause_reason, '') as v from public.campaigns where id = $1", [id]));

    it('knows the same moves as the console, each asking for a status campaigns have', async () => {
      const targets = await one<Record<string, string>>(suite.db, 'select public.campaign_move_targets() as v');
      expect(Object.keys(targets).sort()).toEqual([...CAMPAIGN_MOVES].sort());
      for (const to of Object.values(targets)) expect(CAMPAIGN_STATUSES).toContain(to);
      const owner = await advertiser(0);
      await expect(rawAsUser(suite.db, { sub: owner }, (q) => q.query("select public.campaign_move(gen_random_uuid(), 'archive')"))).rejects.toThrow(
        /no campaign move archive/,
      );
    });

    it('answers every move from every status as the console did, in the same words', async () => {
      const owner = await advertiser(50);
      // [where it starts, the move, what the advertiser reads: the status it took, or the refusal]
      const cases: [Start, CampaignMove, { status: string } | { error: string }][] = [
        [{ status: 'draft' }, 'submit', { status: 'in_review' }],
        [{ status: 'draft', creative: false }, 'submit', { error: NEEDS_CREATIVE }],
        [{ status: 'draft' }, 'pause', { error: cannot('pause') }],
        [{ status: 'draft' }, 'resume', { error: cannot('resume') }],
        [{ status: 'in_review' }, 'submit', { error: cannot('submit') }],
        [{ status: 'in_review' }, 'pause', { error: cannot('pause') }],
        [{ status: 'in_review' }, 'resume', { error: cannot('resume') }],
        [{ status: 'scheduled', future: true }, 'submit', { error: cannot('submit') }],
        [{ status: 'scheduled', future: true }, 'pause', { status: 'paused' }],
        [{ status: 'scheduled', future: true }, 'resume', { error: cannot('resume') }],
        [{ status: 'active' }, 'submit', { error: cannot('submit') }],
        [{ status: 'active' }, 'pause', { status: 'paused' }],
        [{ status: 'active' }, 'resume', { error: cannot('resume') }],
        [{ status: 'paused', pause: 'advertiser' }, 'submit', { error: cannot('submit') }],
        [{ status: 'paused', pause: 'advertiser' }, 'pause', { error: cannot('pause') }],
        [{ status: 'paused', pause: 'advertiser' }, 'resume', { status: 'active' }],
        [{ status: 'paused', pause: 'advertiser', future: true }, 'resume', { status: 'scheduled' }],
        [{ status: 'paused', pause: 'out_of_funds' }, 'resume', { error: NOT_THEIRS }],
        [{ status: 'paused', pause: 'out_of_funds' }, 'pause', { error: cannot('pause') }],
        [{ status: 'paused', pause: 'payment_reversed' }, 'resume', { error: NOT_THEIRS }],
        [{ status: 'completed' }, 'submit', { error: cannot('submit') }],
        [{ status: 'completed' }, 'pause', { error: cannot('pause') }],
        [{ status: 'completed' }, 'resume', { error: cannot('resume') }],
        [{ status: 'rejected' }, 'submit', { error: cannot('submit') }],
        [{ status: 'rejected' }, 'pause', { error: cannot('pause') }],
        [{ status: 'rejected' }, 'resume', { error: cannot('resume') }],
      ];
      for (const [start, move, expected] of cases) {
        const id = await campaign(owner, start);
        const before = await status(id);
        const answer = await moveCampaign(suite.db, owner, id, move);
        const label = `${move} from ${before}`;
        if ('status' in expected) {
          expect(answer, label).toEqual({ ok: true, value: expected });
          expect(await status(id), label).toBe(expected.status === 'paused' ? 'paused:advertiser' : expected.status);
        } else {
          expect(answer, label).toEqual({ ok: false, ...expected });
          expect(await status(id), label).toBe(before);
        }
      }
    });

    it('lists, from every status and pause reason, exactly the moves the trigger accepts, and the campaign reads answer that list', async () => {
      const owner = await advertiser(50);
      // Every status with every pause reason and none, written as the service writes them (the
      // trigger keeps a reason for a pause only, and a pause without one is the advertiser's).
      for (const from of CAMPAIGN_STATUSES) {
        for (const pause of [null, ...PAUSE_REASONS]) {
          const label = `${from} (${pause ?? 'no reason'})`;
          const open = await one<string[]>(suite.db, 'select public.campaign_moves_open($1, $2) as v', [from, pause]);
          const id = await campaign(owner, { status: from, ...(pause ? { pause } : {}), creative: true });
          const stored = await rawAsService(suite.db, (q) =>
            q.query<{ status: string; pause_reason: string | null }>('select status, pause_reason from public.campaigns where id = $1', [id]),
          );
          // The stored state has the same moves as the one written.
          expect(await one<string[]>(suite.db, 'select public.campaign_moves_open($1, $2) as v', [stored[0]!.status, stored[0]!.pause_reason]), label).toEqual(
            open,
          );
          // Each move tried as the advertiser, then rolled back: accepted, or refused.
          const accepted: string[] = [];
          for (const move of CAMPAIGN_MOVES) {
            const rollback = new Error('roll back');
            let answer: { ok: boolean } | undefined;
            await rawAsUser(suite.db, { sub: owner }, async (q) => {
              answer = await one<{ ok: boolean }>(q, 'select public.campaign_move($1, $2) as v', [id, move]);
              throw rollback;
            }).catch((err: unknown) => {
              if (err !== rollback) throw err;
            });
            if (answer!.ok) accepted.push(move);
          }
          expect(open, label).toEqual(accepted);
          expect(await status(id), label).toBe(stored[0]!.status + (stored[0]!.pause_reason ? `:${stored[0]!.pause_reason}` : ''));
          // The console's reads answer the same list with the campaign.
          expect((await advertiserCampaign(suite.db, owner, id))?.campaign.moves, label).toEqual(open);
          expect((await advertiserAccount(suite.db, owner)).campaigns.find((c) => c.id === id)?.moves, label).toEqual(open);
        }
      }
    });

    it('resumes a campaign its advertiser paused into a pause for want of funds when their balance is gone', async () => {
      const broke = await advertiser(0);
      const id = await campaign(broke, { status: 'paused', pause: 'advertiser' });
      expect(await moveCampaign(suite.db, broke, id, 'resume')).toEqual({ ok: true, value: { status: 'paused' } });
      expect(await status(id)).toBe('paused:out_of_funds');
    });

    it('moves only the advertiser’s own campaigns: another’s is as one that does not exist', async () => {
      const owner = await advertiser(50);
      const other = await advertiser(50);
      const id = await campaign(owner, { status: 'active' });
      for (const move of CAMPAIGN_MOVES) {
        expect(await moveCampaign(suite.db, other, id, move)).toEqual({ ok: false, error: cannot(move) });
        expect(await moveCampaign(suite.db, owner, '00000000-0000-4000-8000-000000000000', move)).toEqual({ ok: false, error: cannot(move) });
      }
      expect(await status(id)).toBe('active');
    });

    it('judges a direct write of the status the same way: the trigger is the judge, not the function', async () => {
      const owner = await advertiser(50);
      const draft = await campaign(owner, { status: 'draft' });
      await expect(rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [draft]))).rejects.toThrow(
        /cannot go from draft to paused/,
      );
      const unfunded = await campaign(owner, { status: 'paused', pause: 'out_of_funds' });
      await expect(
        rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'active' where id = $1", [unfunded])),
      ).rejects.toThrow(/is not resumed by its advertiser/);
    });
  });
}
