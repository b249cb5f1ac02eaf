import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Button } from '@/app/_components/ui/button';
import { CampaignButtons } from '@/app/dashboard/ads/forms';
import type { CampaignMove } from '@/lib/ads/advertisers/schemas';
import type { Engine } from '@/lib/platform/db/engine';
import { CAMPAIGN_STATUSES, PAUSE_REASONS } from '@/lib/schemas/advertising';
import { testEngines } from '../helpers/db';

/**
 * The campaign page's buttons come from the moves the database lists with the campaign
 * (public.campaign_moves_open, migration 20261214002000_campaign_moves_open), no longer from the
 * status. On every engine, from every status and pause reason, they are the buttons the console
 * showed when it chose them from the status itself (its rule, kept here as the expectation):
 * "Send to review" for a draft, "Pause" for a scheduled or active campaign, "Resume" for one its
 * advertiser paused, nothing otherwise; same labels, variants and values.
 */

const action = async () => ({});
const NAME = 'Spring sale';

/** The move buttons as the console rendered them before, from the status (a pause without a reason is the advertiser's, as the trigger writes it). */
function formerButtons(status: string, pause: string | null): string {
  const button = (value: string, label: string, variant: 'default' | 'outline' = 'outline') =>
    renderToStaticMarkup(createElement(Button, { type: 'submit', name: 'move', value, variant, size: 'sm', 'aria-label': `${label}: ${NAME}` }, label));
  if (status === 'draft') return button('submit', 'Send to review', 'default');
  if (status === 'active' || status === 'scheduled') return button('pause', 'Pause');
  if (status === 'paused' && (pause ?? 'advertiser') === 'advertiser') return button('resume', 'Resume', 'default');
  return '';
}

/** The buttons of the move form, as rendered. */
function moveButtons(moves: CampaignMove[], status: string): string {
  const html = renderToStaticMarkup(createElement(CampaignButtons, { move: action, remove: action, campaignId: 'c-1', name: NAME, status, moves }));
  return (html.match(/<button[^>]*name="move"[^>]*>.*?<\/button>/g) ?? []).join('');
}

for (const engine of testEngines()) {
  describe(`campaign buttons on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('shows, from every status and pause reason, the buttons it showed when it chose them from the status', async () => {
      let shown = 0;
      for (const status of CAMPAIGN_STATUSES) {
        for (const pause of [null, ...PAUSE_REASONS]) {
          const [row] = await db.query<{ moves: CampaignMove[] }>('select public.campaign_moves_open($1, $2) as moves', [status, pause]);
          const expected = formerButtons(status, pause);
          expect(moveButtons(row!.moves, status), `${status} (${pause ?? 'no reason'})`).toBe(expected);
          if (expected) shown++;
        }
      }
      // draft, scheduled and active with any reason, and paused by the advertiser (or without a reason).
      expect(shown).toBe(3 * 4 + 2);
    });

    it('offers the deletion of a draft, and only of a draft, whatever the moves', () => {
      for (const status of CAMPAIGN_STATUSES) {
        const html = renderToStaticMarkup(createElement(CampaignButtons, { move: action, remove: action, campaignId: 'c-1', name: NAME, status, moves: [] }));
        expect(html.includes('Delete draft'), status).toBe(status === 'draft');
      }
    });
  });
}
