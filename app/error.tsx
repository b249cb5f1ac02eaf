'use client';

import Link from 'next/link';
import { Button } from './_components/ui/button';

/**
 * A page that failed while rendering: says so plainly, with a way to try again. The error's
 * text stays in the server's log (Next sends the browser only its digest, which support can
 * find there).
 */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="mx-auto grid max-w-lg gap-4 py-16 text-center">
      <p className="text-sm font-semibold text-destructive">Something went wrong</p>
      <h1>This page could not be shown</h1>
      <p className="text-muted-foreground">
        Try again in a moment; if it keeps happening, tell us the reference below.
        {error.digest && (
          <>
            {' '}
            Reference: <code>{error.digest}</code>
          </>
        )}
      </p>
      <div className="flex flex-col justify-center gap-3 sm:flex-row">
        <Button onClick={() => reset()}>Try again</Button>
        <Button asChild variant="outline">
          <Link href="/">Home</Link>
        </Button>
      </div>
    </div>
  );
}
