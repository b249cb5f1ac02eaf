import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Monetize: earn from your AI app', template: '%s · Monetize' },
  description: 'A monetization platform for AI apps and SaaS: ads in your app and consented data sales, paid out monthly.',
};

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
            <a href="/api/v1/pricing">Pricing API</a>
          </nav>
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
