import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { formatIn } from '@/lib/ads/advertisers/time';
import { conversionTag, listConversionKeys, MAX_ACTIVE_CONVERSION_KEYS, type ConversionKey } from '@/lib/ads/conversions/keys';
import { CONVERSION_REASON_TEXT, recentConversions } from '@/lib/ads/conversions/recent';
import { env } from '@/lib/platform/env';
import { formatDay, formatMoment } from '@/lib/platform/kit/format';
import { services } from '@/lib/services';
import { Badge } from '../../../_components/ui/badge';
import { Button } from '../../../_components/ui/button';
import { Card, CardDescription, CardHeader, CardTitle } from '../../../_components/ui/card';
import { CodeBlock } from '../../../_components/ui/code-block';
import { EmptyState } from '../../../_components/ui/empty-state';
import { ConfirmButton } from '../../forms';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
import { ScrollTable } from '../../tables';
import { createConversionKeyAction, revokeConversionKeyAction } from '../actions';
import { usd } from '../display';
import { ConversionKeyForm } from './forms';

export const metadata: Metadata = { title: 'Conversions', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** Stands for a new key in the snippets until it is made. */
const KEY_PLACEHOLDER = 'YOUR_CONVERSIONS_KEY';

/**
 * /dashboard/ads/conversions: how the advertiser tells us what its clicks became. The conversion tag
 * for its pages, the conversions keys for its server (made here, shown once, revoked here), and the
 * last conversions received, counted or not and why.
 */
export default async function ConversionsPage() {
  const user = await requireSignedIn('/dashboard/ads/conversions');
  const db = await services().database();
  const account = await advertiserAccount(db, user.id);
  if (!account.profile) redirect('/dashboard/ads');
  const [tag, keys, recent] = await Promise.all([conversionTag(db, user.id), listConversionKeys(db, user.id), recentConversions(db, user.id)]);
  const base = env().PUBLIC_BASE_URL;
  const zone = account.profile.time_zone;
  const script = `${base}/sdk/conversion-v1.js`;
  const everyPage = `<script async src="${script}" data-tag="${tag}"></script>`;
  const onConversion = `<script async src="${script}" data-tag="${tag}"\n        data-conversion="signup" data-value-usd="49.00" data-event-id="ORDER-1234"></script>`;
  const image = `<img src="${base}/functions/v1/conversions/tag?tag=${tag}&click_id=CLICK_ID&name=signup" width="1" height="1" alt="">`;
  const curl = `curl ${base}/functions/v1/conversions \\
  -H "Authorization: Bearer ${KEY_PLACEHOLDER}" \\
  -H "Content-Type: application/json" \\
  -d '{"event_id": "ORDER-1234", "click_id": "THE_MCLID_OF_THE_VISIT", "name": "purchase", "value_usd": 49.00, "occurred_at": "${new Date().toISOString().slice(0, 19)}Z"}'`;

  return (
    <div>
      <ConsoleHeader
        title="Conversions"
        subtitle={`${account.profile.company} · what your clicks became · times in ${zone}.`}
        actions={
          <Button asChild variant="outline">
            <Link href="/dashboard/ads/reports">Reports</Link>
          </Button>
        }
      />
      <ConsoleNav current="/dashboard/ads" />
      <div className="grid gap-6">
        <p className="max-w-3xl text-muted-foreground">
          Every click on your ads lands on your page with a click id, <code>mclid</code>, in its address. Send it back when the visitor signs up or buys, from
          your pages with the tag or from your server with a key, and your campaigns&rsquo; reports show conversions, their value, the cost per conversion and
          the return on your spend. A conversion counts once, for a click that counted, on your own campaign, within the campaign&rsquo;s attribution window (7
          days unless you set another). No cookie and nothing about your visitors is used: only the click id. See{' '}
          <Link href="/docs/conversions">the conversions guide</Link>.
        </p>

        <Card aria-labelledby="tag-title">
          <CardHeader>
            <div>
              <CardTitle id="tag-title">The conversion tag, for your pages</CardTitle>
              <CardDescription>
                Your tag id is <code>{tag}</code>: it is public, and only says whose tag it is. The tag keeps the click id in your site&rsquo;s own storage for
                30 days, so the conversion may happen pages later.
              </CardDescription>
            </div>
          </CardHeader>
          <CodeBlock label="On every page (at least your landing pages)" code={everyPage} />
          <CodeBlock label="On the page where the conversion happens" code={onConversion} />
          <p className="text-sm text-muted-foreground">
            Or call <code>{"window.monetizeConversion('purchase', { value_usd: 49, event_id: 'ORDER-1234' })"}</code> from your own script. Without an event id,
            one conversion per click and name counts. Pages without scripts can send an image, with the click id they were opened with:
          </p>
          <CodeBlock label="Image tag" code={image} />
        </Card>

        <Card aria-labelledby="keys-title">
          <CardHeader>
            <div>
              <CardTitle id="keys-title">Conversions keys, for your server</CardTitle>
              <CardDescription>
                For <code>POST /functions/v1/conversions</code> from your server, as <code>Authorization: Bearer</code>: a secret, never in a page. Up to{' '}
                {MAX_ACTIVE_CONVERSION_KEYS} active keys; each is shown once, and we keep only its hash.
              </CardDescription>
            </div>
          </CardHeader>
          <div className="grid grid-cols-1 gap-6">
            {keys.length === 0 ? <EmptyState title="No keys yet">Make one below if your server reports conversions.</EmptyState> : <KeysTable keys={keys} />}
            <div>
              <h3 className="mb-3 text-base">New key</h3>
              <ConversionKeyForm action={createConversionKeyAction} snippets={[{ label: 'Report a conversion', code: curl }]} placeholder={KEY_PLACEHOLDER} />
            </div>
          </div>
        </Card>

        <section aria-labelledby="recent-title" className="grid gap-3">
          <h2 id="recent-title">Last conversions received</h2>
          {recent.length === 0 ? (
            <EmptyState title="None yet">Conversions appear here within seconds of being sent, counted or not, with the reason when not.</EmptyState>
          ) : (
            <ScrollTable label="Last conversions received" head={['Occurred', 'Name', 'Campaign', 'Value', 'From', 'Your id', 'Counted']}>
              {recent.map((c) => (
                <tr key={c.id}>
                  <td>{formatIn(c.occurred_at, zone)}</td>
                  <th scope="row">{c.name}</th>
                  <td>{c.campaign ?? '—'}</td>
                  <td>{usd(c.value)}</td>
                  <td>{c.source === 'api' ? 'Server' : 'Tag'}</td>
                  <td>
                    <code className="break-all">{c.event_id}</code>
                  </td>
                  <td>{c.valid ? <Badge tone="success">Counted</Badge> : <Badge tone="warning">Not counted: {CONVERSION_REASON_TEXT[c.reason!]}</Badge>}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
        </section>
      </div>
    </div>
  );
}

function KeysTable({ keys }: { keys: ConversionKey[] }) {
  return (
    <ScrollTable label="Conversions keys" head={['Name', 'Key', 'Status', 'Created', 'Last used', 'Actions']} stickyActions>
      {keys.map((k) => (
        <tr key={k.id}>
          <th scope="row">{k.name}</th>
          <td>
            <code>{k.masked_key}</code>
          </td>
          <td>{k.revoked_at ? <Badge tone="neutral">Revoked</Badge> : <Badge tone="success">Active</Badge>}</td>
          <td>{formatDay(k.created_at)}</td>
          <td>{formatMoment(k.last_used_at)}</td>
          <td>
            {!k.revoked_at && (
              <ConfirmButton
                action={revokeConversionKeyAction}
                fields={{ id: k.id }}
                label={`Revoke ${k.name}`}
                text="Revoke"
                question={`Revoke ${k.name} (${k.masked_key})?`}
                description="Conversions your server sends with it are refused from now on, and kept as not counted. This cannot be undone: make a new key for your server first."
                confirmLabel="Revoke key"
              />
            )}
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}
