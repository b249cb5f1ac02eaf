import { randomUUID } from 'node:crypto';
import type { Metadata } from 'next';
import { micro, microToUsd } from '@/lib/platform/kit/micro';
import { formatCount, formatDay, formatMoment, formatUsd } from '@/lib/platform/kit/format';
import { formatBytes } from '@/lib/data/buyers/catalog';
import { describeFilter } from '@/lib/data/buyers/display';
import { LISTINGS } from '@/lib/data/buyers/schemas';
import { callToAction } from '@/lib/ads/advertisers/schemas';
import { formatRun } from '@/lib/ads/advertisers/time';
import { advertisingQueue, type AdvertisingQueue } from '@/lib/ops/advertising';
import { dataQueue, type DataQueue } from '@/lib/ops/data';
import { PRICING_FIELDS, staffPricing, type StaffPricing } from '@/lib/ops/pricing';
import { reversalsQueue, type ReversalsQueue } from '@/lib/ops/reversals';
import { staffOverview } from '@/lib/money/payouts/staff';
import { services } from '@/lib/services';
import { ADVERTISER_CATEGORY_NAMES } from '@/lib/schemas/advertising';
import { ScrollTable } from '../dashboard/tables';
import {
  adjustmentAction,
  closeMonthsAction,
  dataLicenseReviewAction,
  markPayoutAction,
  payoutDetailsAction,
  pricingAction,
  releaseAction,
  reviewAction,
  sendWithStripeAction,
  signOutAction,
  topUpRecordAction,
} from './actions';
import {
  AdjustmentForm,
  CloseMonthsForm,
  DataLicenseReviewForm,
  DetailsForm,
  PayoutActions,
  PricingForm,
  ReleaseForm,
  ReviewForm,
  SendWithStripeForm,
  TopUpRecordForm,
} from './forms';
import { requireStaff } from './staff';
import { Badge } from '../_components/ui/badge';
import { Button } from '../_components/ui/button';
import { EmptyState } from '../_components/ui/empty-state';

export const metadata: Metadata = { title: 'Operator console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

const usd = (amount: number) => formatUsd(microToUsd(micro(amount)));

export default async function OpsPage() {
  const staff = await requireStaff();
  const { stripe } = services();
  const db = await services().database();
  const [o, ads, data, pricing, reversals] = await Promise.all([
    staffOverview(db, staff),
    advertisingQueue(db, staff),
    dataQueue(db, staff, 50),
    staffPricing(db, staff),
    reversalsQueue(db, staff),
  ]);
  const open = o.payouts.filter((p) => p.open);
  const rest = o.payouts.filter((p) => !p.open);
  return (
    <div className="grid grid-cols-1 gap-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl sm:text-3xl">Operator console</h1>
          <p className="mt-1 text-sm text-muted-foreground">Signed in as {staff.email}, with your second factor, for an hour.</p>
        </div>
        <form action={signOutAction}>
          <Button type="submit" variant="outline" size="sm">
            Sign out
          </Button>
        </form>
      </div>

      <section aria-labelledby="to-send" className="grid grid-cols-1 gap-4">
        <h2 id="to-send">Payouts to send</h2>
        {open.length === 0 ? (
          <EmptyState title="No payout is waiting." />
        ) : (
          open.map((p) => {
            const label = `the payout of ${usd(p.amount_micro)} to ${p.email}`;
            return (
              <article key={p.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Payout to ${p.email}`} data-testid="open-payout">
                <h3 className="text-base">
                  {usd(p.amount_micro)} to {p.email} ({p.period}): {p.status}
                </h3>
                <p className="text-sm text-muted-foreground">
                  Requested {formatMoment(p.requested_at.toISOString())}, by {p.rail === 'manual' ? 'bank transfer (you send it)' : 'Stripe'}, to{' '}
                  {p.destination ?? 'no method'}.
                </p>
                {p.rail === 'manual' && <DetailsForm action={payoutDetailsAction} payoutId={p.id} label={label} />}
                {p.rail === 'stripe' && stripe && <SendWithStripeForm action={sendWithStripeAction} payoutId={p.id} label={label} />}
                <PayoutActions action={markPayoutAction} payoutId={p.id} next={p.next} label={label} />
              </article>
            );
          })
        )}
      </section>

      <ReversalsSection reversals={reversals} />

      <AdvertisingSections ads={ads} />

      <DataLicenseSection data={data} />

      <section aria-labelledby="balances" className="grid grid-cols-1 gap-4">
        <h2 id="balances">The ledger’s balances</h2>
        <ScrollTable label="Platform accounts" head={['Account', 'Balance']}>
          {o.platform.map((a) => (
            <tr key={a.kind}>
              <th scope="row">{a.kind}</th>
              <td className="num">{usd(a.balance_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
        <ScrollTable label="Publishers" head={['Publisher', 'Not final yet', 'Available', 'Pays to']}>
          {o.publishers.map((p) => (
            <tr key={p.user_id}>
              <th scope="row">{p.email}</th>
              <td className="num">{usd(p.pending_micro)}</td>
              <td className="num">{usd(p.available_micro)}</td>
              <td>{p.destination ? `${p.destination}${p.method_ready ? '' : ' (not ready)'}` : '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="adjust" className="grid grid-cols-1 gap-4">
        <h2 id="adjust">Adjust a publisher’s earnings</h2>
        <p className="text-sm text-muted-foreground">
          For invalid traffic found after a day was posted, or a correction in the publisher’s favour: a new ledger entry with its reason, never an edit.
        </p>
        <AdjustmentForm action={adjustmentAction} publishers={o.publishers.map((p) => ({ id: p.user_id, email: p.email }))} reference={randomUUID()} />
      </section>

      <section aria-labelledby="months" className="grid grid-cols-1 gap-4">
        <h2 id="months">Month closes</h2>
        <p className="text-sm text-muted-foreground">A month closes on the 5th of the next, by itself; this closes the months that are due now.</p>
        <CloseMonthsForm action={closeMonthsAction} />
        <ScrollTable label="Closed months" head={['Month', 'Closed', 'Publishers', 'Made available']}>
          {o.months.map((m) => (
            <tr key={m.month}>
              <th scope="row">{m.month.slice(0, 7)}</th>
              <td>{formatDay(m.closed_at.toISOString())}</td>
              <td className="num">{m.publishers}</td>
              <td className="num">{usd(m.amount_micro)}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <PricingSection pricing={pricing} />

      <section aria-labelledby="history" className="grid grid-cols-1 gap-4">
        <h2 id="history">Payouts sent and stopped</h2>
        <ScrollTable label="Payouts sent and stopped" head={['Publisher', 'Period', 'Amount', 'Status', 'Reference or reason', 'Requested']}>
          {rest.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.email}</th>
              <td>{p.period}</td>
              <td className="num">{usd(p.amount_micro)}</td>
              <td>{p.status}</td>
              <td>{p.reference ?? p.failure_reason ?? '—'}</td>
              <td>{formatDay(p.requested_at.toISOString())}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="audit" className="grid grid-cols-1 gap-4">
        <h2 id="audit">Audit log</h2>
        <ScrollTable label="Audit log" head={['When', 'Who', 'What', 'Of', 'Why']}>
          {o.audit.map((a) => (
            <tr key={a.id}>
              <td>{formatMoment(a.at.toISOString())}</td>
              <td>{a.staff ?? '—'}</td>
              <td>{a.action}</td>
              <td>{a.subject ?? '—'}</td>
              <td>{a.reason ?? '—'}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </div>
  );
}

type QueuedCreative = AdvertisingQueue['creatives'][number] | AdvertisingQueue['campaigns'][number]['creatives'][number];

/** A creative as the advertiser wrote it: every field as text, never as markup; media as links to open. */
function CreativeText({ c }: { c: QueuedCreative }) {
  return (
    <dl className="grid gap-x-4 gap-y-1 rounded-lg border bg-muted p-3 text-sm sm:grid-cols-[8rem_1fr]">
      <dt className="text-muted-foreground">Format</dt>
      <dd>{c.format}</dd>
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
            {/* What the SDK would show: the image, and the video muted with its controls, to look at before approving. */}
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

const CAUSES = { refund: 'refunded', dispute: 'disputed', payment_failed: 'payment failed' } as const;

/** Accounts on hold because card money of theirs was taken back, and reversals that moved no money. */
function ReversalsSection({ reversals }: { reversals: ReversalsQueue }) {
  return (
    <section aria-labelledby="holds" className="grid grid-cols-1 gap-4">
      <h2 id="holds">Accounts on hold</h2>
      <p className="text-sm text-muted-foreground">
        A card payment of theirs was refunded, disputed or failed: what it brought in was taken back from their balance, their campaigns are paused, and they
        buy and download nothing. Release one once it is settled (its balances not below zero), with what settled it.
      </p>
      {reversals.holds.length === 0 ? (
        <EmptyState title="No account is on hold." />
      ) : (
        reversals.holds.map((h) => {
          const who = h.company ?? h.email;
          return (
            <article key={h.user_id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Hold on ${who}`} data-testid="account-hold">
              <h3 className="text-base break-words">
                {who} · {h.email} · {CAUSES[h.cause]}
              </h3>
              <p className="text-sm text-muted-foreground">
                On hold since {formatMoment(h.opened_at.toISOString())}. Advertising balance {usd(h.advertiser_balance_micro)}, data balance{' '}
                {usd(h.buyer_balance_micro)}; {h.paused_campaigns} campaign{h.paused_campaigns === 1 ? '' : 's'} paused.
              </p>
              <ul className="text-sm">
                {h.reversals.map((r, i) => (
                  <li key={i}>
                    {formatMoment(r.created_at.toISOString())}: {CAUSES[r.cause]}, {usd(r.reversed_micro)} taken back from the {r.account_kind ?? ''} balance (
                    {r.payment_reference ?? 'no payment named'})
                  </li>
                ))}
              </ul>
              <ReleaseForm action={releaseAction} userId={h.user_id} label={who} />
            </article>
          );
        })
      )}
      {reversals.unmoved.length > 0 && (
        <ScrollTable label="Reversals that moved no money (30 days)" head={['When', 'What', 'Amount', 'Payment', 'Account']}>
          {reversals.unmoved.map((r) => (
            <tr key={r.id}>
              <td>{formatMoment(r.created_at.toISOString())}</td>
              <td>{CAUSES[r.cause]}</td>
              <td className="num">{usd(r.amount_micro)}</td>
              <td>{r.payment_reference ?? r.session_id ?? ''}</td>
              <td>{r.email ?? 'no top-up of ours'}</td>
            </tr>
          ))}
        </ScrollTable>
      )}
    </section>
  );
}

/** The advertisers' side of the operator's work: payments to record, campaigns and creatives to review, and balances. */
function AdvertisingSections({ ads }: { ads: AdvertisingQueue }) {
  return (
    <>
      <section aria-labelledby="top-ups" className="grid grid-cols-1 gap-4">
        <h2 id="top-ups">Top-ups to record</h2>
        <p className="text-sm text-muted-foreground">
          Invoices advertisers and data buyers asked for: when a transfer quoting one arrives, record it, and the balance it funds is credited once.
        </p>
        {ads.top_ups.length === 0 ? (
          <EmptyState title="No invoice is waiting for payment." />
        ) : (
          ads.top_ups.map((t) => {
            const label = `invoice ${t.invoice_number ?? t.id} of ${usd(t.amount_micro)} from ${t.company ?? t.email}`;
            return (
              <article
                key={t.id}
                className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6"
                aria-label={`Invoice ${t.invoice_number ?? t.id}`}
                data-testid="open-top-up"
              >
                <h3 className="flex flex-wrap items-center gap-2 text-base">
                  <span className="break-words">
                    {usd(t.amount_micro)} · {t.invoice_number} · {t.company ?? t.email}
                  </span>
                  {t.account_kind === 'buyer' && <Badge tone="info">Data buyer</Badge>}
                </h3>
                <p className="text-sm text-muted-foreground">
                  Asked {formatMoment(t.requested_at.toISOString())} by {t.email}.
                </p>
                <TopUpRecordForm action={topUpRecordAction} topUpId={t.id} label={label} />
              </article>
            );
          })
        )}
      </section>

      <section aria-labelledby="to-review" className="grid grid-cols-1 gap-4">
        <h2 id="to-review">Campaigns to review</h2>
        {ads.campaigns.length === 0 ? (
          <EmptyState title="No campaign is waiting for review." />
        ) : (
          ads.campaigns.map((c) => (
            <article key={c.id} className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" aria-label={`Campaign ${c.name}`} data-testid="campaign-to-review">
              <h3 className="text-base break-words">
                {c.name} · {c.advertiser}
              </h3>
              <p className="text-sm text-muted-foreground">
                {c.email} · budget {c.lifetime_budget_micro === null ? 'none' : usd(c.lifetime_budget_micro)}
                {c.daily_cap_micro === null ? '' : `, ${usd(c.daily_cap_micro)} a day`} · {formatRun(c.starts_at, c.ends_at, c.time_zone ?? 'UTC')} (
                {c.time_zone ?? 'UTC'}){c.ends_at && c.hard_stop ? ' (hard stop)' : ''} · {c.formats.join(', ')}
                {c.keywords.length ? ` · keywords: ${c.keywords.join(', ')}` : ''}
                {c.include_categories.length ? ` · only: ${c.include_categories.join(', ')}` : ''}
                {c.exclude_categories.length ? ` · never: ${c.exclude_categories.join(', ')}` : ''}
              </p>
              <p className="text-sm break-words text-muted-foreground" data-testid="campaign-context">
                {ADVERTISER_CATEGORY_NAMES[c.advertiser_category]} · context hints: {c.context_hints.length ? c.context_hints.join(', ') : 'none'}
                {c.excluded_phrases.length ? ` · excluded phrases: ${c.excluded_phrases.join(', ')}` : ''}
              </p>
              {c.creatives.map((cr) => (
                <div key={cr.id} className="grid gap-2">
                  <CreativeText c={cr} />
                  {cr.status === 'in_review' && (
                    <ReviewForm action={reviewAction} id={cr.id} kind="creative" label={`the ${cr.format} creative of ${c.name}`} />
                  )}
                </div>
              ))}
              <ReviewForm action={reviewAction} id={c.id} kind="campaign" label={`the campaign ${c.name}`} />
            </article>
          ))
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
              <CreativeText c={cr} />
              <ReviewForm action={reviewAction} id={cr.id} kind="creative" label={`the ${cr.format} creative of ${cr.campaign}`} />
            </article>
          ))}
        </section>
      )}

      <section aria-labelledby="advertisers" className="grid grid-cols-1 gap-4">
        <h2 id="advertisers">Advertisers</h2>
        <ScrollTable label="Advertisers" head={['Advertiser', 'Email', 'Balance', 'Active campaigns']}>
          {ads.advertisers.map((a) => (
            <tr key={a.user_id}>
              <th scope="row">{a.company}</th>
              <td>{a.email}</td>
              <td className="num">{usd(a.balance_micro)}</td>
              <td className="num">{a.active_campaigns}</td>
            </tr>
          ))}
        </ScrollTable>
      </section>
    </>
  );
}

/** The exclusive data licenses waiting for review: who asks, what for, what they would take, and the decision. */
function DataLicenseSection({ data }: { data: DataQueue }) {
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
              <DataLicenseReviewForm action={dataLicenseReviewAction} id={l.id} label={label} />
            </article>
          );
        })
      )}
    </section>
  );
}

/** The prices in force, the form that changes them from a stated time, and the changes scheduled and applied. */
function PricingSection({ pricing }: { pricing: StaffPricing }) {
  const { current } = pricing;
  return (
    <section aria-labelledby="pricing" className="grid grid-cols-1 gap-4">
      <h2 id="pricing">Pricing</h2>
      <p className="text-sm text-muted-foreground">
        What is billed is priced with the values in force when it is billed, and keeps that price: a change takes effect now or from a later time, never
        earlier, and reaches only what is billed after it. A later change goes into force within seconds of its time (a minute on Vercel).
        {current ? ` In force since ${formatMoment(current.updated_at.toISOString())}.` : ''}
      </p>
      {current ? <PricingForm action={pricingAction} current={current} /> : <EmptyState title="No pricing is in force: the database has no pricing row." />}
      <ScrollTable label="Pricing changes" head={['From', 'Applied', 'Changed', 'Why', 'By']}>
        {pricing.changes.map((c, i) => (
          <tr key={c.id}>
            <td>{formatMoment(c.effective_at.toISOString())}</td>
            <td>{c.applied_at ? formatMoment(c.applied_at.toISOString()) : 'waiting'}</td>
            <td>{changedValues(c, pricing.changes[i + 1])}</td>
            <td>{c.reason}</td>
            <td>{c.scheduled_by_email ?? '—'}</td>
          </tr>
        ))}
      </ScrollTable>
    </section>
  );
}

/** What a change sets that the one scheduled before it did not (all of it for the first), as `name value` pairs. */
function changedValues(change: StaffPricing['changes'][number], before: StaffPricing['changes'][number] | undefined): string {
  const changed = PRICING_FIELDS.filter((f) => !before || before[f.name] !== change[f.name]);
  return changed.length === 0 ? 'the same values' : changed.map((f) => `${f.name} ${change[f.name]}`).join(', ');
}
