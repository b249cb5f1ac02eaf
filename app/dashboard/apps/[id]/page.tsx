import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { listApiKeys, listApps } from '@/lib/account/operations';
import { formatDay } from '@/lib/platform/kit/format';
import { consoleAccount } from '@/lib/publisher/session';
import {
  adRequestSnippet,
  impressionSnippet,
  KEY_PLACEHOLDER,
  reactSnippet,
  scriptTagSnippet,
  SERVER_KEY_PLACEHOLDER,
  serverAdSnippet,
} from '@/lib/publisher/snippets';
import { env } from '@/lib/platform/env';
import { KEY_ENVIRONMENTS, PLACEMENT_FORMATS } from '@/lib/schemas/account';
import { formatName } from '@/lib/schemas/format-names';
import { MAX_ACTIVE_KEYS_PER_APP, MAX_ACTIVE_SERVER_KEYS_PER_APP } from '@/lib/schemas/console';
import { services } from '@/lib/services';
import {
  adRulesAction,
  archiveAppAction,
  changePlacementAction,
  createApiKeyAction,
  createPlacementAction,
  minRelevanceAction,
  revokeApiKeyAction,
  updateAppAction,
  withdrawConsentAction,
} from '../../actions';
import { AdRulesForm, AppForm, ConfirmButton, ConsentWithdrawalForm, KeyForm, MinRelevanceForm, PlacementButtons, PlacementForm } from '../../forms';
import { CodeBlock } from '../../../_components/ui/code-block';
import { requirePublisher } from '../../publisher';
import { Card, CardDescription, CardHeader, CardTitle } from '../../../_components/ui/card';
import { CopyButton } from '../../../_components/ui/copy-button';
import { EmptyState } from '../../../_components/ui/empty-state';
import { KeyTable, PlacementTable, UnfilledTable } from '../../tables';
import { DEFAULT_MIN_RELEVANCE, UNFILLED_DAYS, unfilledRequests } from '@/lib/publisher/ad-rules';
import { ADVERTISER_CATEGORIES, ADVERTISER_CATEGORY_NAMES } from '@/lib/schemas/advertising';

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
  const unfilled = await unfilledRequests(await s.database(), user.id, app.id);
  const ownKeys = keys.filter((k) => k.app_id === app.id && k.kind === 'publishable');
  const serverKeys = keys.filter((k) => k.app_id === app.id && k.kind === 'server');
  const base = env().PUBLIC_BASE_URL;

  const snippetsOf = (p: (typeof own)[number]) => [
    { label: `Script tag for ${p.name}`, code: scriptTagSnippet({ origin: base, placementId: p.id, format: p.format }) },
    { label: `React component for ${p.name}`, code: reactSnippet({ origin: base, placementId: p.id, format: p.format }) },
  ];
  const live = own.filter((p) => p.status === 'active');
  // A server's request for an ad, for a placement that serves (or any, or where one's id goes).
  const asked = live[0] ?? own[0];
  const serverSnippets = [
    {
      label: asked ? `Ask for an ad for ${asked.name} from your server` : 'Ask for an ad from your server',
      code: serverAdSnippet(base, asked?.id ?? 'YOUR_PLACEMENT_ID'),
    },
  ];

  return (
    <div className="grid grid-cols-1 gap-8">
      <div>
        <Link href="/dashboard" className="text-sm">
          ← Console
        </Link>
        <h1 className="mt-2 text-2xl sm:text-3xl">{app.name}</h1>
        <p className="mt-1 text-sm text-muted-foreground">
          <code>{app.slug}</code> · created {formatDay(app.created_at)}
        </p>
      </div>

      <Card aria-labelledby="placements-title" id="placements" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="placements-title">Placements</CardTitle>
            <CardDescription>Where ads may appear in this app, each in one format.</CardDescription>
          </div>
        </CardHeader>
        <div className="grid grid-cols-1 gap-6">
          {own.length === 0 ? (
            <EmptyState title="No placements yet">Create one below: a name and the format of the ads it shows.</EmptyState>
          ) : (
            <PlacementTable
              label={`Placements of ${app.name}`}
              placements={own}
              actions={(p) => <PlacementButtons action={changePlacementAction} placementId={p.id} status={p.status} name={p.name} />}
            />
          )}
          <div>
            <h3 className="mb-3 text-base">New placement</h3>
            <PlacementForm action={createPlacementAction} appId={app.id} formats={PLACEMENT_FORMATS} />
          </div>
        </div>
      </Card>

      <Card aria-labelledby="relevance-title" id="relevance" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="relevance-title">Ads that fit the conversation</CardTitle>
            <CardDescription>
              When your app sends the conversation with an ad request, only campaigns at least this relevant to it are shown ({DEFAULT_MIN_RELEVANCE} unless you
              change it; 0 to 1), and sensitive conversations get none. Requests of the last {UNFILLED_DAYS} days, by why nothing filled, and the ads your users
              hid: <Link href="/docs/ad-decision">how an ad is chosen</Link>.
            </CardDescription>
          </div>
        </CardHeader>
        {own.length === 0 ? (
          <p className="text-sm text-muted-foreground">Create a placement first.</p>
        ) : (
          <UnfilledTable
            label={`Relevance and unfilled requests of ${app.name}`}
            placements={own}
            unfilled={unfilled}
            relevance={(p) => <MinRelevanceForm action={minRelevanceAction} placementId={p.id} name={p.name} value={p.min_relevance} />}
          />
        )}
      </Card>

      <Card aria-labelledby="ad-rules-title" id="ad-rules" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="ad-rules-title">Ads on this app</CardTitle>
            <CardDescription>
              Topics after which your app shows no ad, and advertisers and kinds of advertiser it never shows. They apply from the next ad request.
            </CardDescription>
          </div>
        </CardHeader>
        <AdRulesForm
          action={adRulesAction.bind(null, app.id)}
          appId={app.id}
          initial={{
            excluded_topics: app.excluded_topics.join('\n'),
            blocked_advertisers: app.blocked_advertisers.join('\n'),
            blocked_categories: app.blocked_categories.join(','),
          }}
          categories={ADVERTISER_CATEGORIES.map((c) => ({ value: c, name: ADVERTISER_CATEGORY_NAMES[c] }))}
        />
      </Card>

      <Card aria-labelledby="keys-title" id="keys" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="keys-title">Publishable keys</CardTitle>
            <CardDescription>
              The publishable key your pages send with each ad request. An app can have up to {MAX_ACTIVE_KEYS_PER_APP} active keys; revoking one makes room for
              another.
            </CardDescription>
          </div>
        </CardHeader>
        <div className="grid grid-cols-1 gap-6">
          {ownKeys.length === 0 ? (
            <EmptyState title="No keys yet">Create one below. It is shown once, with this app&rsquo;s snippets filled in with it.</EmptyState>
          ) : (
            <KeyTable
              label={`API keys of ${app.name}`}
              keys={ownKeys}
              actions={revocable('Pages and apps using it are refused at once. This cannot be undone: make a new key for them.')}
            />
          )}
          <div>
            <h3 className="mb-3 text-base">New key</h3>
            <KeyForm
              action={createApiKeyAction}
              appId={app.id}
              environments={KEY_ENVIRONMENTS}
              snippets={live.flatMap(snippetsOf).slice(0, 2)}
              placeholder={KEY_PLACEHOLDER}
            />
          </div>
        </div>
      </Card>

      <Card aria-labelledby="server-keys-title" id="server-keys" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="server-keys-title">Server keys</CardTitle>
            <CardDescription>
              For asking for ads from your own server, beside your model&rsquo;s answer: a secret sent as <code>Authorization: Bearer</code>, never from a page.
              An app can have up to {MAX_ACTIVE_SERVER_KEYS_PER_APP} active server keys.
            </CardDescription>
          </div>
        </CardHeader>
        <div className="grid grid-cols-1 gap-6">
          {serverKeys.length === 0 ? (
            <EmptyState title="No server keys">Create one if your app asks for ads from its server. It is shown once.</EmptyState>
          ) : (
            <KeyTable
              label={`Server keys of ${app.name}`}
              keys={serverKeys}
              actions={revocable('Every server refuses it within 5 seconds. This cannot be undone: make a new key for your server first.')}
            />
          )}
          <div>
            <h3 className="mb-3 text-base">New server key</h3>
            <KeyForm
              action={createApiKeyAction}
              appId={app.id}
              environments={KEY_ENVIRONMENTS}
              kind="server"
              snippets={serverSnippets}
              placeholder={SERVER_KEY_PLACEHOLDER}
            />
          </div>
        </div>
      </Card>

      <Card aria-labelledby="snippets-title" id="snippets" className="scroll-mt-24">
        <CardHeader>
          <div>
            <CardTitle id="snippets-title">Put the ads in your app</CardTitle>
            <CardDescription>
              Paste a snippet where the ad should appear, with your key in place of {KEY_PLACEHOLDER} (the key is filled in for you in the moment you create
              it). The page&rsquo;s origin must be one of this app&rsquo;s allowed origins
              {app.allowed_origins.length > 0 ? <>: now {app.allowed_origins.join(', ')}</> : <>: none yet, add it in the settings below</>}.
            </CardDescription>
          </div>
        </CardHeader>
        {own.length === 0 ? (
          <p className="text-sm text-muted-foreground">Create a placement first: each one has its own snippet.</p>
        ) : (
          <div className="grid grid-cols-1 gap-3">
            {own.map((p, i) => (
              <details key={p.id} open={i === 0} className="group min-w-0 rounded-lg border px-4 py-3">
                <summary className="cursor-pointer font-medium">
                  {p.name} <span className="text-sm font-normal text-muted-foreground">· {formatName(p.format)}</span>
                </summary>
                <div className="mt-3 grid min-w-0 gap-2">
                  <div className="flex min-w-0 flex-wrap items-center gap-2 text-sm">
                    <span className="text-muted-foreground">Placement id</span>
                    <code data-testid="placement-id" className="min-w-0 rounded bg-muted px-1.5 py-0.5 break-all">
                      {p.id}
                    </code>
                    <CopyButton text={p.id} label="Copy id" what="Placement id" aria-label={`Copy the id of ${p.name}`} />
                  </div>
                  {snippetsOf(p).map((snippet) => (
                    <CodeBlock key={snippet.label} label={snippet.label} code={snippet.code} />
                  ))}
                  <details className="text-sm">
                    <summary className="cursor-pointer text-muted-foreground">Without the browser SDK (HTTP)</summary>
                    <CodeBlock label="Get an ad" code={adRequestSnippet(base, p.id)} />
                    <CodeBlock label="Send its impression once viewable" code={impressionSnippet(base)} />
                  </details>
                </div>
              </details>
            ))}
            <p className="text-sm text-muted-foreground">
              The SDK draws the ad, measures when it has been seen and counts its impression: see{' '}
              <Link href="/docs/sdk-integration#the-browser-sdk">the browser SDK</Link>, and <Link href="/demo">the demo</Link> using it. The React package is
              built from <code>packages/sdk</code> of this repository; it is not on the npm registry yet.
            </p>
          </div>
        )}
      </Card>

      <Card aria-labelledby="consents-title">
        <CardHeader>
          <div>
            <CardTitle id="consents-title">A user&rsquo;s consent</CardTitle>
            <CardDescription>
              A user who asks you, rather than your app, to stop selling their data, or who lost the consent proof your app kept for them: withdraw their
              consent here. Their unsold records are deleted at once.
            </CardDescription>
          </div>
        </CardHeader>
        <ConsentWithdrawalForm action={withdrawConsentAction.bind(null, app.id)} appId={app.id} />
      </Card>

      <Card aria-labelledby="settings-title">
        <CardHeader>
          <CardTitle id="settings-title">Settings</CardTitle>
        </CardHeader>
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
      </Card>

      <Card aria-labelledby="archive-title" className="border-destructive/40">
        <CardHeader>
          <div>
            <CardTitle id="archive-title">Archive this app</CardTitle>
            <CardDescription>An archived app is listed nowhere and served nothing; its keys are revoked. Its earnings stay in your totals.</CardDescription>
          </div>
        </CardHeader>
        <ConfirmButton
          action={archiveAppAction}
          fields={{ id: app.id }}
          label={`Archive ${app.name}`}
          question={`Archive ${app.name}?`}
          description="Its keys stop working at once and it serves no more ads. This cannot be undone."
          confirmLabel="Archive app"
        />
      </Card>
    </div>
  );
}

/** A key's Revoke button, which asks first and says what revoking does (`consequence`). */
function revocable(consequence: string) {
  return function RevokeKey(k: { id: string; name: string; masked_key: string; status: string }) {
    return k.status === 'active' ? (
      <ConfirmButton
        action={revokeApiKeyAction}
        fields={{ id: k.id }}
        label={`Revoke ${k.name}`}
        text="Revoke"
        question={`Revoke ${k.name} (${k.masked_key})?`}
        description={consequence}
        confirmLabel="Revoke key"
      />
    ) : null;
  };
}
