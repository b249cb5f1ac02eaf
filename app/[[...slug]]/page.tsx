import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { allPages, pageByPath, twinPath } from '@/lib/content/pages';
import { absoluteUrl } from '@/lib/platform/http/responses';

/**
 * Every public page, from content/ (rendered per request, for the nonce of its
 * Content-Security-Policy: app/layout.tsx); its markdown twin is linked.
 */

type Params = { slug?: string[] };

export const dynamicParams = false;

export function generateStaticParams(): Params[] {
  return allPages().map((p) => ({ slug: p.path === '/' ? [] : p.path.slice(1).split('/') }));
}

function pathOf(params: Params): string {
  return params.slug?.length ? `/${params.slug.join('/')}` : '/';
}

export async function generateMetadata({ params }: { params: Promise<Params> }): Promise<Metadata> {
  const page = pageByPath(pathOf(await params));
  if (!page) return {};
  return {
    title: page.path === '/' ? { absolute: page.title } : page.title,
    description: page.description,
    alternates: { canonical: absoluteUrl(page.path), types: { 'text/markdown': absoluteUrl(twinPath(page.path)) } },
  };
}

export default async function ContentPage({ params }: { params: Promise<Params> }) {
  const path = pathOf(await params);
  const page = pageByPath(path);
  if (!page) notFound();
  const docs = allPages().filter((p) => p.path.startsWith('/docs'));
  const isDoc = path.startsWith('/docs');
  return (
    <div className={isDoc ? 'with-sidebar' : undefined}>
      {isDoc && (
        <nav aria-label="Docs" className="sidebar">
          <ul>
            {docs.map((d) => (
              <li key={d.path}>
                <Link href={d.path} aria-current={d.path === path ? 'page' : undefined}>
                  {d.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <article className="prose" dangerouslySetInnerHTML={{ __html: page.html }} />
      <p className="twin">
        <a href={twinPath(page.path)} type="text/markdown">
          This page as markdown
        </a>
      </p>
    </div>
  );
}
