import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { z } from 'zod';
import { advertiserAccount, advertiserCampaign, type Creative } from '@/lib/ads/advertisers/account';
import { CREATIVE_OUTCOMES, CREATIVE_UPLOAD_PATH } from '@/lib/ads/advertisers/creative-upload';
import { reportCsv, sumBy, type ReportRow } from '@/lib/ads/advertisers/reports';
import { callToAction, CREATIVE_RULES } from '@/lib/ads/advertisers/schemas';
import { dayIn, formatRun } from '@/lib/ads/advertisers/time';
import { dayShortfall } from '@/lib/ads/advertisers/funding';
import { campaignDelivery } from '@/lib/ads/advertisers/delivery';
import { csvDataUrl } from '@/lib/platform/kit/csv';
import { clickThroughRate, formatCount, formatDay, formatPercent, formatUsd } from '@/lib/platform/kit/format';
import { microAsUsd, microToUsd } from '@/lib/platform/kit/micro';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { PLACEMENT_FORMATS, type PlacementFormat } from '@/lib/schemas/account';
import { formatName } from '@/lib/schemas/format-names';
import { services } from '@/lib/services';
import { AdPreviews } from '../../../../_components/ad-preview';
import { Alert } from '../../../../_components/ui/alert';
import { EmptyState } from '../../../../_components/ui/empty-state';
import { ConsoleHeader, ConsoleNav } from '../../../nav';
import { requirePublisher as requireSignedIn } from '../../../publisher';
import { StatusBadge, Totals } from '../../../tables';
import { FiguresTable } from '../../figures';
import { deleteDraftAction, moveCampaignAction, moveCreativeAction, updateCampaignAction } from '../../actions';
import { CampaignButtons, CampaignForm, CreativeButtons, CreativeForm } from '../../forms';
import { DeliveryPanel } from '../../delivery';
import { budgetLeftMicro, ecpm, statusNote, usd } from '../../display';

export const metadata: Metadata = { title: 'Campaign', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** A creative's media: the image as the card draws it (96 px wide), and the video as a link with its size and length. */
function CreativeMediaSummary({ creative: cr }: { creative: Creative }) {
  const size = cr.width && cr.height ? `${cr.width}×${cr.height} px` : null;
  const facts = [size, cr.duration_ms ? `${(cr.duration_ms / 1000).toFixed(1)} s` : null].filter(Boolean).join(', ');
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm">
      {cr.image_url && (
        // eslint-disable-next-line @next/next/no-img-element -- a stored upload, shown as the SDK draws it, without an optimisation step
        <img src={cr.image_url} alt={`The image of “${cr.headline}”`} width={96} className="h-auto max-h-24 w-24 rounded-md border object-contain" />
      )}
      {cr.video_url ? (
        <a href={cr.video_url} target="_blank" rel="noopener">
          Open the video{facts ? ` (${facts})` : ''}
        </a>
      ) : (
        facts && <span className="text-muted-foreground">{facts}</span>
      )}
    </div>
  );
}

/**
 * /dashboard/ads/campaigns/[id]: a campaign's status and moves, its settings, its creatives, and
 * its figures by day, creative and app. `?creative=` says what became of a creative form sent
 * without JavaScript (the route sends the browser back here; with JavaScript the form says it).
 */
export default async function CampaignPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id } = await params;
  const sent = (await searchParams).creative;
  const outcome = typeof sent === 'string' && Object.hasOwn(CREATIVE_OUTCOMES, sent) ? (sent as keyof typeof CREATIVE_OUTCOMES) : null;
  const user = await requireSignedIn(`/dashboard/ads/campaigns/${id}`);
  if (!z.string().uuid().safeParse(id).success) notFound();
  const s = services();
  const db = await s.database();
  const [account, found, delivery] = await Promise.all([
    advertiserAccount(db, user.id),
    advertiserCampaign(db, user.id, id),
    campaignDelivery(db, user.id, id),
  ]);
  if (!account.profile) redirect('/dashboard/ads');
  if (!found) notFound();
  const { campaign: c, creatives, days } = found;
  const zone = account.profile.time_zone;
  const company = account.profile.company;
  const pricing = (await s.pricing.values()) ?? DEFAULT_PRICING;
  const editable = c.status !== 'completed';
  const left = budgetLeftMicro(c);
  // A campaign going to review, waiting or running that the balance cannot pay a day of: said before anything else (out of funds already says it).
  const short = ['draft', 'rejected', 'in_review', 'scheduled', 'active'].includes(c.status) ? dayShortfall(account.balance_micro, c) : null;
  const headlineOf = new Map(creatives.map((cr) => [cr.id, cr.headline]));
  // The campaign's daily figures as the reports page reads them (lib/ads/advertisers/reports.ts): the same sums and the same CSV.
  const rows: ReportRow[] = days.map((d) => ({
    day: d.day,
    campaign_id: c.id,
    campaign: c.name,
    creative_id: d.creative_id,
    creative: headlineOf.get(d.creative_id) ?? 'A deleted creative',
    format: d.format,
    app_id: d.app_id,
    app: d.app_name,
    fills: d.fills,
    impressions: d.impressions,
    clicks: d.clicks,
    hides: d.hides,
    spent_micro: d.spent_micro,
    conversions: d.conversions,
    conversion_value_micro: d.conversion_value_micro,
  }));
  const byCreative = sumBy(rows, (r) => `${formatName(r.format)}: ${r.creative}`);
  const byApp = sumBy(rows, (r) => r.app);
  const byDay = sumBy(rows, (r) => r.day).sort((a, b) => b.key.localeCompare(a.key));
  const missing = c.formats.filter((f) => !creatives.some((cr) => cr.format === f));
  const endDay = c.ends_at ? dayIn(new Date(c.ends_at.getTime() - 1), zone) : '';
  return (
    <div>
      <ConsoleHeader title={c.name} subtitle={`${formatRun(c.starts_at, c.ends_at, zone)} (${zone}) · ${statusNote(c)}`} />
      <ConsoleNav current="/dashboard/ads" />
      <div className="mb-6 flex flex-wrap items-center gap-3">
        <StatusBadge status={c.status} />
        <CampaignButtons move={moveCampaignAction} remove={deleteDraftAction} campaignId={c.id} name={c.name} status={c.status} moves={c.moves} />
        <Link href="/dashboard/ads" className="ml-auto text-sm">
          All campaigns
        </Link>
      </div>
      {c.status === 'rejected' && (
        <Alert tone="error" className="mb-6">
          Rejected: {c.rejection_reason}. Edit the campaign (it becomes a draft again) and send it to review.
        </Alert>
      )}
      {c.context_hints.length === 0 && c.status !== 'completed' && (
        <Alert tone="info" className="mb-6">
          No context hints yet: apps that send the conversation with their ad requests will not show this campaign. Add a few phrases where your ads fit in{' '}
          <a href="#settings">its settings</a>, and try them on the <Link href="/dashboard/ads#try">campaigns page</Link>.
        </Alert>
      )}
      {short && (
        <Alert tone="warning" className="mb-6">
          Your balance, {usd(account.balance_micro)}, does not pay for a day of this campaign
          {short.day_micro === null ? '' : ` (up to ${usd(short.day_micro)} a day)`}:{' '}
          {account.balance_micro <= 0 ? 'it cannot serve at all. ' : 'it stops serving when the balance is used up. '}
          <Link href="/dashboard/ads/funds">Add funds</Link>
          {c.moves.includes('submit') ? ' before you send it to review.' : '.'}
        </Alert>
      )}
      {c.status === 'paused' && c.pause_reason === 'out_of_funds' && (
        <Alert tone="warning" className="mb-6">
          Paused because your balance is used up. <Link href="/dashboard/ads/funds">Add funds</Link>: it resumes by itself once they are credited.
        </Alert>
      )}

      {delivery && (
        <DeliveryPanel
          campaign={c}
          delivery={delivery}
          balance={account.balance_micro}
          cpmMicro={
            Object.fromEntries(PLACEMENT_FORMATS.map((f) => [f, Math.round(pricing.advertiser_cpm_usd[f] * 1_000_000)])) as Record<PlacementFormat, number>
          }
        />
      )}

      <section aria-labelledby="results" className="mb-10">
        <h2 id="results" className="mb-3">
          Results
        </h2>
        <Totals
          items={[
            { label: 'Spend', value: usd(c.spent_micro), testId: 'campaign-spend', exact: c.spent_micro },
            { label: 'Budget left', value: left === null ? '—' : usd(left) },
            { label: 'Impressions', value: formatCount(c.impressions), testId: 'campaign-impressions' },
            { label: 'CTR', value: formatPercent(clickThroughRate(c.clicks, c.impressions)) },
            { label: 'Hidden by users', value: formatCount(c.hides) },
            { label: 'eCPM', value: ecpm(c.spent_micro, c.impressions) },
            { label: 'Pays', value: c.max_cpc_micro === null ? 'Per 1,000 impressions' : `Per click, ${usd(c.max_cpc_micro)} a click` },
            { label: 'Clicks', value: formatCount(c.clicks), testId: 'campaign-clicks' },
            { label: 'Cost per click', value: c.clicks > 0 ? formatUsd(c.spent_micro / 1_000_000 / c.clicks) : '—', testId: 'campaign-cpc' },
          ]}
        />
        <p className="mt-3 text-sm text-muted-foreground">
          From the daily figures, counted every few seconds; the CSV has them by day, creative and app (the latest 2,000 rows).{' '}
          <a href={csvDataUrl(reportCsv(rows))} download={`campaign-${c.id}.csv`}>
            Download the report (CSV)
          </a>
        </p>
      </section>

      <section aria-labelledby="creatives" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="creatives">Creatives</h2>
        {outcome && <Alert tone={outcome === 'refused' ? 'error' : 'success'}>{CREATIVE_OUTCOMES[outcome]}</Alert>}
        <p className="text-sm text-muted-foreground">Each new or edited creative is reviewed before it serves; the text is shown exactly as you write it.</p>
        {creatives.length === 0 && <EmptyState title="No creatives yet">Add one for each format the campaign buys.</EmptyState>}
        {creatives.map((cr) => (
          <article key={cr.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Creative: ${cr.headline}`}>
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="text-base">{formatName(cr.format)}</h3>
              <StatusBadge status={cr.status} />
              <div className="ml-auto">
                <CreativeButtons action={moveCreativeAction} creativeId={cr.id} status={cr.status} label={`the ${cr.format} creative “${cr.headline}”`} />
              </div>
            </div>
            {cr.status === 'rejected' && <Alert tone="error">Rejected: {cr.rejection_reason}. Edit it to send it to review again.</Alert>}
            {/* The creative as text: whatever it contains is shown as written, never as markup. */}
            <p className="rounded-lg border bg-muted p-3 text-sm">
              <span className="font-semibold">{cr.headline}</span>
              {cr.body ? ` · ${cr.body}` : ''} ·{' '}
              <span className="text-primary">{CREATIVE_RULES[cr.format].clickAction ? callToAction(cr.format, cr.cta).text : cr.cta}</span>
              <span className="block truncate text-muted-foreground">{cr.landing_url}</span>
            </p>
            {(cr.image_url || cr.video_url) && <CreativeMediaSummary creative={cr} />}
            <AdPreviews
              format={cr.format}
              creative={{ id: cr.id, advertiser: company, headline: cr.headline, body: cr.body, cta: cr.cta, image_url: cr.image_url, video_url: cr.video_url }}
              landingUrl={cr.landing_url}
            />
            {editable && (
              <details>
                <summary className="cursor-pointer text-sm font-medium">Edit this creative</summary>
                <div className="mt-3">
                  <CreativeForm
                    endpoint={CREATIVE_UPLOAD_PATH}
                    format={cr.format}
                    campaignId={c.id}
                    creativeId={cr.id}
                    initial={cr}
                    media={cr}
                    submit="Save and send to review"
                    advertiser={company}
                  />
                </div>
              </details>
            )}
          </article>
        ))}
        {editable &&
          c.formats.map((format: PlacementFormat) => (
            <details key={format} className="rounded-xl border p-4 sm:p-6" open={missing.includes(format)}>
              <summary className="cursor-pointer font-medium">Add a creative: {formatName(format)}</summary>
              <p className="mt-2 text-sm text-muted-foreground">{CREATIVE_RULES[format].says}</p>
              <div className="mt-3">
                <CreativeForm
                  endpoint={CREATIVE_UPLOAD_PATH}
                  format={format}
                  campaignId={c.id}
                  initial={{ headline: '', body: '', cta: CREATIVE_RULES[format].clickAction ? 'ask' : 'Learn more', landing_url: '' }}
                  submit="Add creative"
                  advertiser={company}
                />
              </div>
            </details>
          ))}
      </section>

      <section aria-labelledby="where" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="where">Where your ads ran</h2>
        {days.length === 0 ? (
          <EmptyState title="No impressions yet">Once the campaign serves, its figures appear here by app, creative and day.</EmptyState>
        ) : (
          <>
            <FiguresTable label="Spend per app" first="App" rows={byApp} />
            <FiguresTable label="Per creative" first="Creative" rows={byCreative} />
            <FiguresTable label="Per day (UTC)" first="Day" rows={byDay} name={(day) => formatDay(`${day}T00:00:00Z`)} />
          </>
        )}
      </section>

      {editable && (
        <section aria-labelledby="settings" className="grid grid-cols-1 gap-4">
          <h2 id="settings">Settings</h2>
          {c.status !== 'draft' && c.status !== 'rejected' && (
            <p className="text-sm text-muted-foreground">Changes to budget, dates and targeting take effect at once, without another review.</p>
          )}
          <CampaignForm
            action={updateCampaignAction.bind(null, c.id)}
            cpms={pricing.advertiser_cpm_usd}
            cpc={{ floorUsd: pricing.cpc_floor_usd, priorClickRate: pricing.cpc_prior_click_rate }}
            zone={zone}
            submit="Save settings"
            initial={{
              name: c.name,
              starts_on: dayIn(c.starts_at, zone),
              ends_on: endDay,
              hard_stop: c.hard_stop ? 'on' : '',
              lifetime_budget_usd: c.lifetime_budget_micro === null ? '' : microToUsd(c.lifetime_budget_micro).toFixed(2),
              daily_cap_usd: c.daily_cap_micro === null ? '' : microToUsd(c.daily_cap_micro).toFixed(2),
              keywords: c.keywords.join(', '),
              include_categories: c.include_categories.join(', '),
              exclude_categories: c.exclude_categories.join(', '),
              excluded_apps: c.excluded_apps.join('\n'),
              context_hints: c.context_hints.join('\n'),
              excluded_phrases: c.excluded_phrases.join('\n'),
              advertiser_category: c.advertiser_category,
              frequency_cap: String(c.frequency_cap),
              attribution_window_days: String(c.attribution_window_days),
              pricing_model: c.max_cpc_micro === null ? 'cpm' : 'cpc',
              max_cpc_usd: c.max_cpc_micro === null ? '' : String(microAsUsd(c.max_cpc_micro)),
              formats: c.formats,
            }}
          />
        </section>
      )}
    </div>
  );
}
