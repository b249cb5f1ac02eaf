import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { dayIn } from '@/lib/ads/advertisers/time';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { services } from '@/lib/services';
import { ConsoleHeader, ConsoleNav } from '../../../nav';
import { requirePublisher as requireSignedIn } from '../../../publisher';
import { createCampaignAction } from '../../actions';
import { CampaignForm } from '../../forms';

export const metadata: Metadata = { title: 'New campaign', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** /dashboard/ads/campaigns/new: a campaign's settings, saved as a draft; its creatives are added on its page. */
export default async function NewCampaignPage() {
  const user = await requireSignedIn('/dashboard/ads/campaigns/new');
  const s = services();
  const account = await advertiserAccount(await s.database(), user.id);
  if (!account.profile) redirect('/dashboard/ads');
  const pricing = (await s.pricing.values()) ?? DEFAULT_PRICING;
  const zone = account.profile.time_zone;
  return (
    <div>
      <ConsoleHeader title="New campaign" subtitle="Saved as a draft: add its creatives, then send it to review." />
      <ConsoleNav current="/dashboard/ads" />
      <CampaignForm
        action={createCampaignAction}
        cpms={pricing.advertiser_cpm_usd}
        cpc={{ floorUsd: pricing.cpc_floor_usd, priorClickRate: pricing.cpc_prior_click_rate }}
        zone={zone}
        submit="Save draft"
        initial={{
          name: '',
          starts_on: dayIn(new Date(), zone),
          ends_on: '',
          hard_stop: '',
          lifetime_budget_usd: '',
          daily_cap_usd: '',
          keywords: '',
          include_categories: '',
          exclude_categories: '',
          excluded_apps: '',
          context_hints: '',
          excluded_phrases: '',
          advertiser_category: 'other',
          frequency_cap: '3',
          attribution_window_days: '7',
          pricing_model: 'cpm',
          max_cpc_usd: '',
          formats: [],
        }}
      />
    </div>
  );
}
