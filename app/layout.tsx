import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { AccountMenu } from './_components/account-menu';
import { SearchBox } from './_components/search-box';
import './globals.css';

// Every page is rendered per request, so that Next can put the nonce of the request's
// Content-Security-Policy (proxy.ts) on its inline scripts: lib/platform/http/security-headers.ts says why.
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Monetize', template: '%s · Monetize' },
  description: 'A monetization platform for AI apps and SaaS: ads in your app and consented data sales, paid out monthly.',
};

const NAV = [
  ['/publishers', 'Publishers'],
  ['/advertisers', 'Advertisers'],
  ['/data-buyers', 'Data buyers'],
  ['/pricing', 'Pricing'],
  ['/docs', 'Docs'],
] as const;

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <a className="skip" href="#main">
          Skip to content
        </a>
        <header className="site-header">
          <Link href="/" className="brand">
            Monetize
          </Link>
          <nav aria-label="Main">
            {NAV.map(([href, label]) => (
              <Link key={href} href={href}>
                {label}
              </Link>
            ))}
          </nav>
          <SearchBox />
          <AccountMenu />
        </header>
        <main id="main">{children}</main>
        <footer className="site-footer">
          <a href="/llms.txt">llms.txt</a> · <a href="/api/v1/openapi.json">OpenAPI</a> · <a href="/sitemap.xml">Sitemap</a>
        </footer>
      </body>
    </html>
  );
}
