import type { Metadata } from 'next';
import { formatCount, formatMoment, wordOf } from '@/lib/platform/kit/format';
import { formatBytes } from '@/lib/data/buyers/catalog';
import { describeFilter } from '@/lib/data/buyers/display';
import { LISTINGS } from '@/lib/data/buyers/schemas';
import { callToAction } from '@/lib/ads/advertisers/schemas';
import { formatRun } from '@/lib/ads/advertisers/time';
import { advertisingQueue, type AdvertisingQueue } from '@/lib/ops/advertising';
import { dataQueue, type DataQueue } from '@/lib/ops/data';
import { formatName } from '@/lib/schemas/format-names';
import { ADVERTISER_CATEGORY_NAMES } from '@/lib/schemas/advertising';
import { services } from '@/lib/services';
import { dataLicenseReviewAction, reviewAction } from '../../actions';
import { DataLicenseReviewForm, ReviewForm } from '../../forms';
import { OpsFrame } from '../../frame';
import { usd } from '../../money';
import { requireStaff } from '../../staff';
import { AdPreviews } from '../../../_components/ad-preview';
import { EmptyState } from '../../../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Reviews · Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** Campaigns and creatives sent to review, and exclusive data licenses asked for: each reviewed on its own row. */
export default async function OpsReviewsPage() {
  const staff = await requireStaff();
  const db = await services().database();
  const [ads, data] = await Promise.all([advertisingQueue(db, staff), dataQueue(db, staff, 50)]);
  return (
    <OpsFrame
      staff={staff}
      current="/ops/reviews"
      title="Reviews"
      about="A campaign serves once it and a creative of it are approved. Each creative is reviewed on its own row, under what it shows; the campaign on the last."
    >
      <CampaignReviews ads={ads} />
      <DataLicenseReviews data={data} />
    </OpsFrame>
  );
}

type QueuedCreative = AdvertisingQueue['creatives'][number] | AdvertisingQueue['campaigns'][number]['creatives'][number];

/**
 * A creative as the advertiser wrote it: every field as text, never as markup; media to look at
 * before approving; and as apps will show it, drawn by the SDK at a phone's and a desktop's width.
 */
function CreativeText({ c, advertiser }: { c: QueuedCreative; advertiser: string }) {
  return (
    <div className="grid gap-3">
      <AdPreviews
        format={c.format}
        creative={{ id: c.id, advertiser, headline: c.headline, body: c.body ?? '', cta: c.cta, image_url: c.image_url, video_url: c.video_url }}
        landingUrl={c.landing_url}
      />
      <CreativeFacts c={c} />
    </div>
  );
}

function CreativeFacts({ c }: { c: QueuedCreative }) {
  return (
    <dl className="grid gap-x-4 gap-y-1 rounded-lg border bg-muted p-3 text-sm sm:grid-cols-[8rem_1fr]">
      <dt className="text-muted-foreground">Format</dt>
      <dd>{formatName(c.format)}</dd>
      <dt className="text-muted-foreground">Headline</dt>
      <dd className="break-words">{c.headline}</dd>
      {c.body && (
        <>
          <dt className="text-muted-foreground">Text</dt>
          <dd className="break-words">{c.body}</dd>
        </>
      )}
      <dt className="text-muted-foreground">{callToAction(c.format, c.cta).label}</dt>
      <dd>{callToAction(c.format, c.cta).text}</dd>
      <dt className="text-muted-foreground">Landing page</dt>
      <dd className="break-all">{c.landing_url}</dd>
      {(c.image_url || c.video_url) && (
        <>
          <dt className="text-muted-foreground">Media</dt>
          <dd className="grid gap-2">
            {c.image_url && (
              // eslint-disable-next-line @next/next/no-img-element -- the uploaded file itself, as the SDK shows it: not resized by Next's optimizer
              <img src={c.image_url} alt="The creative's image" className="max-h-32 w-auto max-w-full rounded border bg-background object-contain" />
            )}
            {c.video_url && <video src={c.video_url} controls muted preload="metadata" className="aspect-video w-full max-w-sm rounded border bg-black" />}
            <span className="break-all text-muted-foreground">
              {[c.image_url, c.video_url].filter(Boolean).join(' · ')}
              {c.width && c.height ? ` (${c.width}×${c.height}${c.duration_ms ? `, ${(c.duration_ms / 1000).toFixed(1)} s` : ''})` : ''}
            </span>
          </dd>
        </>
      )}
    </dl>
  );
}

function CampaignReviews({ ads }: { ads: AdvertisingQueue }) {
  return (
    <>
      <section aria-labelledby="to-review" className="grid grid-cols-1 gap-4">
        <h2 id="to-review">Campaigns to review</h2>
        {ads.campaigns.length === 0 ? (
          <EmptyState title="No campaign is waiting for review." />
        ) : (
          ads.campaigns.map((c) => {
            const zone = c.time_zone ?? 'UTC';
            return (
              <article
                key={c.id}
                className="grid gap-4 rounded-xl border bg-card p-4 sm:p-6"
                aria-label={`Campaign ${c.name}`}
                data-testid="campaign-to-review"
              >
                <h3 className="text-base break-words">
                  {c.name} · {c.advertiser}
                </h3>
                <p className="text-sm text-muted-foreground">
                  {c.email} · budget {c.lifetime_budget_micro === null ? 'none' : usd(c.lifetime_budget_micro)}
                  {c.daily_cap_micro === null ? '' : `, ${usd(c.daily_cap_micro)} a day`} ·{' '}
                  {c.max_cpc_micro === null ? 'pays per 1,000 impressions' : `pays ${usd(c.max_cpc_micro)} per click`} ·{' '}
                  {formatRun(c.starts_at, c.ends_at, zone)} ({zone}){c.ends_at && c.hard_stop ? ' (hard stop)' : ''} · {c.formats.map(formatName).join(', ')}
                  {c.keywords.length ? ` · keywords: ${c.keywords.join(', ')}` : ''}
                  {c.include_categories.length ? ` · only: ${c.include_categories.join(', ')}` : ''}
                  {c.exclude_categories.length ? ` · never: ${c.exclude_categories.join(', ')}` : ''}
                </p>
                <p className="text-sm break-words text-muted-foreground" data-testid="campaign-context">
                  {ADVERTISER_CATEGORY_NAMES[c.advertiser_category]} · context hints: {c.context_hints.length ? c.context_hints.join(', ') : 'none'}
                  {c.excluded_phrases.length ? ` · excluded phrases: ${c.excluded_phrases.join(', ')}` : ''}
                </p>
                {c.creatives.map((cr, i) => (
                  <div key={cr.id} className="grid gap-2 border-l-4 pl-3" aria-label={`Creative ${i + 1} of ${c.creatives.length}`} role="group">
                    <h4 className="text-sm font-medium">
                      Creative {i + 1} of {c.creatives.length}: {formatName(cr.format)}
                      {cr.status === 'in_review' ? '' : ` (${wordOf(cr.status)})`}
                    </h4>
                    <CreativeText c={cr} advertiser={c.advertiser} />
                    {cr.status === 'in_review' && (
                      <ReviewForm action={reviewAction} id={cr.id} kind="creative" label={`the ${cr.format} creative of ${c.name}`} />
                    )}
                  </div>
                ))}
                <div className="grid gap-2 border-t pt-3">
                  <h4 className="text-sm font-medium">The campaign</h4>
                  <ReviewForm action={reviewAction} id={c.id} kind="campaign" label={`the campaign ${c.name}`} />
                </div>
              </article>
            );
          })
        )}
      </section>

      {ads.creatives.length > 0 && (
        <section aria-labelledby="creatives-to-review" className="grid grid-cols-1 gap-4">
          <h2 id="creatives-to-review">Creatives to review in running campaigns</h2>
          {ads.creatives.map((cr) => (
            <article key={cr.id} className="grid gap-2 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Creative of ${cr.campaign}`}>
              <h3 className="text-base break-words">
                {cr.campaign} · {cr.advertiser}
              </h3>
              <CreativeText c={cr} advertiser={cr.advertiser} />
              <ReviewForm action={reviewAction} id={cr.id} kind="creative" label={`the ${cr.format} creative of ${cr.campaign}`} />
            </article>
          ))}
        </section>
      )}
    </>
  );
}

/** The exclusive data licenses waiting for review: who asks, what for, what they would take, and the decision. */
function DataLicenseReviews({ data }: { data: DataQueue }) {
  return (
    <section aria-labelledby="data-licenses" className="grid grid-cols-1 gap-4">
      <h2 id="data-licenses">Exclusive data licenses awaiting review</h2>
      <p className="text-sm text-muted-foreground">
        Their price is reserved from the buyer’s balance and their records are withheld from other buyers until you decide. Approving charges the buyer and
        credits the publishers; rejecting releases both, and the buyer reads the reason.
      </p>
      {data.licenses.length === 0 ? (
        <EmptyState title="No exclusive license is waiting for review." />
      ) : (
        data.licenses.map((l) => {
          const listing = LISTINGS[l.listing];
          const who = l.company ?? l.email;
          const label = `the exclusive license of ${listing.title} for ${who}, requested ${formatMoment(l.requested_at.toISOString())}`;
          return (
            <article
              key={l.id}
              className="grid min-w-0 gap-3 rounded-xl border bg-card p-4 sm:p-6"
              aria-label={`Data license for ${who}`}
              data-testid="data-license-to-review"
            >
              <h3 className="text-base break-words">
                {listing.title} · {usd(l.price_micro)} · {who}
              </h3>
              <dl className="grid gap-x-4 gap-y-1 rounded-lg border bg-muted p-3 text-sm sm:grid-cols-[9rem_1fr]">
                <dt className="text-muted-foreground">Buyer</dt>
                <dd className="break-words">
                  {l.company ?? '—'} · {l.email}
                </dd>
                <dt className="text-muted-foreground">Intended use</dt>
                <dd className="break-words whitespace-pre-line">{l.intended_use ?? '—'}</dd>
                <dt className="text-muted-foreground">Filter</dt>
                <dd className="break-words">{describeFilter(l.filter, listing)}</dd>
                <dt className="text-muted-foreground">Records</dt>
                <dd className="tabular-nums">
                  {formatCount(l.records)} ({formatBytes(l.bytes)})
                </dd>
                <dt className="text-muted-foreground">Requested</dt>
                <dd>{formatMoment(l.requested_at.toISOString())}</dd>
              </dl>
              <DataLicenseReviewForm action={dataLicenseReviewAction} id={l.id} label={label} price={usd(l.price_micro)} who={who} />
            </article>
          );
        })
      )}
    </section>
  );
}
