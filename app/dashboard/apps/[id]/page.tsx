import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { listApiKeys, listApps } from '@/lib/account/operations';
import { formatDay } from '@/lib/console/format';
import { consoleAccount } from '@/lib/console/session';
import { adRequestSnippet, impressionSnippet } from '@/lib/console/snippets';
import { env } from '@/lib/platform/env';
import { KEY_ENVIRONMENTS, PLACEMENT_FORMATS } from '@/lib/schemas/account';
import { MAX_ACTIVE_KEYS_PER_APP } from '@/lib/schemas/console';
import { services } from '@/lib/services';
import {
  archiveAppAction,
  changePlacementAction,
  createApiKeyAction,
  createPlacementAction,
  revokeApiKeyAction,
  updateAppAction,
  withdrawConsentAction,
} from '../../actions';
import { AppForm, ConfirmButton, ConsentWithdrawalForm, KeyForm, PlacementButtons, PlacementForm, Snippet } from '../../forms';
import { requirePublisher } from '../../publisher';
import { KeyTable, PlacementTable } from '../../tables';

export const metadata: Metadata = { title: 'App', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Params = Promise<{ id: string }>;

export default async function AppPage({ params }: { params: Params }) {
  const { id } = await params;
  const user = await requirePublisher(`/dashboard/apps/${encodeURIComponent(id)}`);
  const s = services();
  const account = consoleAccount(user, s.database);
  const [{ apps, placements }, { api_keys: keys }] = await Promise.all([listApps(account, 'all'), listApiKeys(account, 'all')]);
  // Only the publisher's own, active apps are listed: anything else is not found.
  const app = apps.find((a) => a.id === id);
  if (!app) notFound();
  const own = placements.filter((p) => p.app_id === app.id && p.status !== 'archived');
  const ownKeys = keys.filter((k) => k.app_id === app.id);
  const base = env().PUBLIC_BASE_URL;

  return (
    <div className="console">
      <p>
        <Link href="/dashboard">← Console</Link>
      </p>
      <h1>{app.name}</h1>
      <p className="muted">
        <code>{app.slug}</code> · created {formatDay(app.created_at)}
      </p>

      <section aria-labelledby="placements">
        <h2 id="placements">Placements</h2>
        {own.length === 0 ? (
          <p>No placements yet.</p>
        ) : (
          <PlacementTable
            label={`Placements of ${app.name}`}
            placements={own}
            actions={(p) => <PlacementButtons action={changePlacementAction} placementId={p.id} status={p.status} name={p.name} />}
          />
        )}
        {own.map((p) => (
          <details key={p.id} className="snippets">
            <summary>Put “{p.name}” in your app</summary>
            <Snippet label="Get an ad" code={adRequestSnippet(base, p.id)} />
            <Snippet label="Send its impression once viewable" code={impressionSnippet(base)} />
            <p className="hint">
              On a web page, the browser SDK (a script tag, or a React component) makes these calls for you: see{' '}
              <Link href="/docs/sdk-integration#the-browser-sdk">The browser SDK</Link>, and <Link href="/demo">the demo</Link> using it.
            </p>
          </details>
        ))}
        <h3>New placement</h3>
        <PlacementForm action={createPlacementAction} appId={app.id} formats={PLACEMENT_FORMATS} />
      </section>

      <section aria-labelledby="keys">
        <h2 id="keys">API keys</h2>
        {ownKeys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <KeyTable
            label={`API keys of ${app.name}`}
            keys={ownKeys}
            actions={(k) =>
              k.status === 'active' ? (
                <ConfirmButton
                  action={revokeApiKeyAction}
                  fields={{ id: k.id }}
                  label={`Revoke ${k.name}`}
                  question={`Revoke ${k.name} (${k.masked_key})? Apps using it are refused at once.`}
                />
              ) : null
            }
          />
        )}
        <h3>New key</h3>
        <p className="hint">An app can have up to {MAX_ACTIVE_KEYS_PER_APP} active keys; revoking one makes room for another.</p>
        <KeyForm action={createApiKeyAction} appId={app.id} environments={KEY_ENVIRONMENTS} />
      </section>

      <section aria-labelledby="consents">
        <h2 id="consents">A user&rsquo;s consent</h2>
        <p>
          A user who asks you, rather than your app, to stop selling their data, or who lost the consent proof your app kept for them: withdraw their consent
          here. Their unsold records are deleted at once.
        </p>
        <ConsentWithdrawalForm action={withdrawConsentAction.bind(null, app.id)} appId={app.id} />
      </section>

      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        <AppForm
          action={updateAppAction.bind(null, app.id)}
          submit="Save changes"
          idPrefix="edit-app"
          initial={{
            name: app.name,
            slug: app.slug,
            description: app.description,
            category: app.category.join(', '),
            allowed_origins: app.allowed_origins.join('\n'),
          }}
        />
        <h3>Archive</h3>
        <p>An archived app is listed nowhere and served nothing; its keys are revoked. Its earnings stay in your totals.</p>
        <ConfirmButton
          action={archiveAppAction}
          fields={{ id: app.id }}
          label={`Archive ${app.name}`}
          question={`Archive ${app.name}? Its keys stop working at once.`}
        />
      </section>
    </div>
  );
}
