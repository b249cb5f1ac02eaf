import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { hasOpsCookie, headerStaff } from '@/lib/identity/auth/ops-cookie';
import { hasSessionCookie, headerUser } from '@/lib/identity/auth/session';
import { processOAuthSecrets } from '@/lib/process';
import { AccountMenu } from './_components/account-menu';
import { Menu } from './_components/menu';
import { SearchBox } from './_components/search-box';
import { Toaster } from './_components/ui/toaster';
import './globals.generated.css';

// Every page is rendered per request, so that Next can put the nonce of the request's
// Content-Security-Policy (proxy.ts) on its inline scripts: lib/platform/http/security-headers.ts says why.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Monetize', template: '%s · Monetize' },
  description: 'A monetization platform for AI apps and SaaS: ads in your app and consented data sales, paid out monthly.',
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#16181d' },
  ],
};

const NAV = [
  ['/publishers', 'Publishers'],
  ['/advertisers', 'Advertisers'],
  ['/data-buyers', 'Data buyers'],
  ['/pricing', 'Pricing'],
  ['/docs', 'Docs'],
] as const;

function Brand() {
  return (
    <Link href="/" className="flex shrink-0 items-center gap-2 text-lg font-bold tracking-tight text-foreground no-underline">
      <span aria-hidden="true" className="grid size-7 place-items-center rounded-md bg-primary text-sm text-primary-foreground">
        M
      </span>
      {/* On the narrowest phones the mark stands alone; the name stays for screen readers. */}
      <span className="max-[399px]:sr-only">Monetize</span>
    </Link>
  );
}

/** Who is signed in, for the header (from the session cookies alone): a user, staff in the operator console, both, or nobody when that cannot be told. */
async function signedIn() {
  try {
    const request = await headers();
    // Without a cookie of either kind nobody is signed in: no key (and no database) is read.
    if (!hasSessionCookie(request) && !hasOpsCookie(request)) return { user: null, operator: null };
    // The process's secrets (lib/process.ts), not the services': every page has this layout, and
    // the services reach nearly all of lib/, which Next would compile before the first page.
    const secrets = await processOAuthSecrets();
    if (!secrets) return { user: null, operator: null };
    const [user, operator] = await Promise.all([headerUser(request, secrets), headerStaff(request, { oauthSecrets: processOAuthSecrets })]);
    return { user, operator };
  } catch {
    return { user: null, operator: null };
  }
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const { user, operator } = await signedIn();
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <a
          className="sr-only focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:rounded-md focus:bg-background focus:px-3 focus:py-2 focus:shadow"
          href="#main"
        >
          Skip to content
        </a>
        <header className="sticky top-0 z-40 border-b bg-background/95 backdrop-blur supports-[backdrop-filter]:bg-background/80">
          <div className="mx-auto flex h-16 max-w-7xl items-center gap-2 px-4 sm:gap-4 sm:px-6">
            <Brand />
            <nav aria-label="Main" className="hidden items-center gap-1 lg:flex">
              {NAV.map(([href, label]) => (
                <Link
                  key={href}
                  href={href}
                  prefetch={false}
                  className="rounded-md px-2.5 py-1.5 text-sm font-medium text-muted-foreground no-underline hover:bg-accent hover:text-foreground"
                >
                  {label}
                </Link>
              ))}
            </nav>
            <div className="ml-auto hidden xl:block">
              <SearchBox />
            </div>
            <div className="ml-auto flex shrink-0 items-center gap-1 sm:gap-2 xl:ml-0">
              <AccountMenu initialUser={user} operator={operator} />
              {/* The phone and tablet menu: a disclosure that works before any script (app/_components/menu.tsx). */}
              <Menu className="group relative lg:hidden [&_summary::-webkit-details-marker]:hidden">
                <summary className="flex h-9 cursor-pointer list-none items-center rounded-md border px-3 text-sm font-medium">Menu</summary>
                <div className="absolute right-0 z-50 mt-2 w-[min(20rem,calc(100vw-2rem))] rounded-xl border bg-popover p-3 shadow-lg">
                  <nav aria-label="Main (menu)" className="grid">
                    {NAV.map(([href, label]) => (
                      <Link
                        key={href}
                        href={href}
                        prefetch={false}
                        className="rounded-md px-3 py-2 text-sm font-medium text-foreground no-underline hover:bg-accent"
                      >
                        {label}
                      </Link>
                    ))}
                  </nav>
                  <div className="mt-3 border-t pt-3">
                    <SearchBox />
                  </div>
                </div>
              </Menu>
            </div>
          </div>
          <div className="mx-auto hidden max-w-7xl px-6 pb-2 lg:block xl:hidden">
            <SearchBox />
          </div>
        </header>
        <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-8 sm:px-6">
          {children}
        </main>
        <footer className="border-t">
          <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-6 text-sm text-muted-foreground sm:px-6">
            <span>Monetize · ads and consented data for AI apps</span>
            <nav aria-label="Footer" className="flex flex-wrap gap-4 [&_a]:no-underline [&_a:hover]:underline">
              <Link href="/docs" prefetch={false}>
                Docs
              </Link>
              <Link href="/pricing" prefetch={false}>
                Pricing
              </Link>
              <a href="/llms.txt">llms.txt</a>
              <a href="/api/v1/openapi.json">OpenAPI</a>
              <a href="/sitemap.xml">Sitemap</a>
            </nav>
          </div>
        </footer>
        <Toaster />
      </body>
    </html>
  );
}
