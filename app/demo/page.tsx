import type { Metadata } from 'next';
import Link from 'next/link';
import { demoSetup } from '@/lib/demo/page';
import { services } from '@/lib/services';
import { Alert } from '../_components/ui/alert';
import { DemoChat } from './demo-chat';

export const metadata: Metadata = {
  title: 'Demo app',
  description: 'A small AI chat app that shows ads through the Monetize browser SDK: inline text in its answers, a sponsored card and a floating video.',
};

// Reads the demo's key and placements from the database on every visit.
export const dynamic = 'force-dynamic';

/** /demo: the demo publisher's chat app, with the SDK's three placements (in the layout's <main>). */
export default async function DemoPage() {
  const setup = await demoSetup(() => services().database());
  return (
    <div className="grid grid-cols-1 gap-6">
      <header className="grid max-w-3xl gap-2">
        <h1>Quizly, a demo app</h1>
        <p className="text-muted-foreground">
          This page is a publisher&apos;s app: an AI quiz helper of the demo account. Its answers carry a sponsored line, the page a sponsored card further down
          and a floating video, all served by this service through the{' '}
          <Link href="/docs/sdk-integration" className="underline">
            browser SDK
          </Link>
          . Each answer&apos;s ad is chosen for the conversation, which is never stored: ask about taking notes, or about a symptom (no ad), and open &ldquo;Why
          this ad?&rdquo; (the <span aria-hidden="true">i</span> beside an ad). Impressions count once an ad has been in view long enough; sign in as{' '}
          <code className="rounded bg-muted px-1 py-0.5 text-[0.9em] text-foreground">demo@example.com</code> to watch them reach the console.
        </p>
      </header>
      {'problem' in setup ? (
        <Alert tone="warning" role="alert" className="max-w-3xl text-base">
          The demo cannot show ads: {setup.problem}
        </Alert>
      ) : (
        <DemoChat apiKey={setup.key} placements={setup.placements} />
      )}
    </div>
  );
}
