import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { pageByPath } from '@/lib/docs/content/pages';
import { DOCS_SECTIONS } from '@/lib/docs/content/site';
import { CodeCopy } from '../_components/code-copy';
import { contentMetadata, Twin } from '../_components/content';
import '../highlight.css';

/**
 * Every public page from content/ but the home page (app/page.tsx), rendered per request for the
 * nonce of its Content-Security-Policy (app/layout.tsx); its markdown twin is linked. A path that
 * names no page is the 404 page. No list of the paths is given to Next: every page renders per request anyway,
 * and building the list read and rendered every page before the first was answered.
 */

type Params = { slug: string[] };

function pathOf(params: Params): string {
  return `/${params.slug.join('/')}`;
}

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  return contentMetadata(pathOf(await params));
}

function DocsNav({ path }: { path: string }) {
  return (
    <ul className="grid gap-5 text-sm">
      {DOCS_SECTIONS.map((section) => (
        <li key={section.title}>
          <p className="mb-1.5 px-2 text-xs font-semibold tracking-wide text-muted-foreground uppercase">{section.title}</p>
          <ul className="grid gap-0.5">
            {section.paths.map((p) => (
              <li key={p}>
                <Link
                  href={p}
                  prefetch={false}
                  aria-current={p === path ? 'page' : undefined}
                  className="block rounded-md px-2 py-1 text-foreground no-underline hover:bg-accent aria-[current=page]:bg-accent aria-[current=page]:font-semibold aria-[current=page]:text-primary"
                >
                  {pageByPath(p)?.title ?? p}
                </Link>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

export default async function ContentPage({ params }: { params: Promise<Params> }) {
  const path = pathOf(await params);
  const page = pageByPath(path);
  if (!page) notFound();
  if (!path.startsWith('/docs')) {
    return (
      <div className="mx-auto max-w-3xl">
        <article className="prose max-w-none" dangerouslySetInnerHTML={{ __html: page.html }} />
        <CodeCopy />
        <Twin path={path} />
      </div>
    );
  }
  return (
    <div className="grid grid-cols-1 gap-8 lg:grid-cols-[15rem_minmax(0,1fr)]">
      <nav aria-label="Docs" className="lg:sticky lg:top-20 lg:max-h-[calc(100dvh-6rem)] lg:self-start lg:overflow-y-auto">
        <details className="group rounded-lg border lg:border-0" open={false}>
          <summary className="flex cursor-pointer list-none items-center justify-between px-3 py-2 text-sm font-medium lg:hidden">
            Docs pages{' '}
            <span aria-hidden="true" className="transition-transform group-open:rotate-180">
              ▾
            </span>
          </summary>
          <div className="border-t p-2 lg:hidden">
            <DocsNav path={path} />
          </div>
        </details>
        <div className="hidden lg:block">
          <DocsNav path={path} />
        </div>
      </nav>
      <div className="min-w-0">
        <article className="prose max-w-3xl" dangerouslySetInnerHTML={{ __html: page.html }} />
        <CodeCopy />
        <Twin path={path} />
      </div>
    </div>
  );
}
