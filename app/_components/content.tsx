import type { Metadata } from 'next';
import { pageByPath, twinPath } from '@/lib/docs/content/pages';
import { absoluteUrl } from '@/lib/platform/http/responses';

/**
 * What the site's content pages share (app/page.tsx, the home page, and app/[...slug]/page.tsx,
 * every other page from content/): their metadata and the link to their markdown twin.
 */

/** The title, description, canonical address and markdown twin of the page at `path` (none for a path that names no page). */
export function contentMetadata(path: string): Metadata {
  const page = pageByPath(path);
  if (!page) return {};
  return {
    title: page.path === '/' ? { absolute: page.title } : page.title,
    description: page.description,
    alternates: { canonical: absoluteUrl(page.path), types: { 'text/markdown': absoluteUrl(twinPath(page.path)) } },
  };
}

export function Twin({ path }: { path: string }) {
  return (
    <p className="mt-10 border-t pt-4 text-sm text-muted-foreground">
      <a href={twinPath(path)} type="text/markdown">
        This page as markdown
      </a>
    </p>
  );
}
