import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from './_components/ui/button';

export const metadata: Metadata = { title: 'Page not found', robots: { index: false, follow: false } };

/** Any path with no page: says so, and offers the ways on. */
export default function NotFound() {
  return (
    <div className="mx-auto grid max-w-lg gap-4 py-16 text-center">
      <p className="text-sm font-semibold text-primary">404</p>
      <h1>This page does not exist</h1>
      <p className="text-muted-foreground">The link may be old, or the address mistyped. The docs and the console are a click away.</p>
      <div className="flex flex-col justify-center gap-3 sm:flex-row">
        <Button asChild>
          <Link href="/">Home</Link>
        </Button>
        <Button asChild variant="outline">
          <Link href="/docs">Docs</Link>
        </Button>
        <Button asChild variant="outline">
          <Link href="/dashboard">Console</Link>
        </Button>
      </div>
    </div>
  );
}
