import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { pageByPath } from '@/lib/docs/content/pages';
import { withoutTitle } from '@/lib/docs/content/site';
import { CodeCopy } from './_components/code-copy';
import { contentMetadata, Twin } from './_components/content';
import { Home } from './_components/home';
import './highlight.css';

/**
 * The home page: the product in a screen (app/_components/home.tsx), then content/index.md.
 *
 * A route of its own, not one more path of app/[...slug]: `next dev` answers the first request of
 * a dynamic route only after loading the page again in a new process, to ask it for static
 * params (which no page here has), and `/` is the page a developer opens first after every start
 * (`npm run dev:first-run` measures it).
 */
export function generateMetadata(): Metadata {
  return contentMetadata('/');
}

export default function HomePage() {
  const page = pageByPath('/');
  if (!page) notFound();
  return (
    <>
      <Home />
      <article className="prose mx-auto mt-16 max-w-3xl" dangerouslySetInnerHTML={{ __html: withoutTitle(page.html) }} />
      <CodeCopy />
      <div className="mx-auto max-w-3xl">
        <Twin path="/" />
      </div>
    </>
  );
}
