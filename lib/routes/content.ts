import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { decodeCursor, paginate } from '../platform/http/cursor';
import { ApiError } from '../platform/http/errors';
import { absoluteUrl } from '../platform/http/responses';
import { ROUTES } from '../schemas/registry';
import { pagesBody } from '../schemas/pages';
import { allPages, pageByPath, twinPath } from '../docs/content/pages';

/** GET /api/v1/pages: every public, indexable page with its markdown twin. */
export const pagesRoute = defineRoute(ROUTES['/api/v1/pages'], {
  GET: async ({ query, services }) => {
    const key = await services.cursorKey();
    const binding = `pages\n${query.limit}`;
    const offset = query.cursor ? decodeCursor(key, binding, query.cursor) : 0;
    const pages = allPages();
    const { page, pagination } = paginate(key, pages, offset, query.limit, binding);
    return json(
      pagesBody.parse({
        count: page.length,
        total: pages.length,
        pages: page.map((p) => ({
          path: p.path,
          url: absoluteUrl(p.path),
          title: p.title,
          description: p.description,
          markdown_url: absoluteUrl(twinPath(p.path)),
        })),
        pagination,
      }),
    );
  },
});

/**
 * The markdown twin of a page, at `<path>.md` and for `Accept: text/markdown` (both rewritten
 * to /markdown/<path> in next.config.ts).
 */
export const markdownTwinRoute = defineRoute(ROUTES['/markdown/[[...slug]]'], {
  GET: ({ params }) => {
    const slug = params.slug;
    const segments = Array.isArray(slug) ? slug : slug ? [slug] : [];
    const path = segments.length === 0 || (segments.length === 1 && segments[0] === 'index') ? '/' : `/${segments.join('/')}`;
    const page = pageByPath(path);
    if (!page) throw new ApiError('not_found', `No public page at ${path}.`);
    return new Response(page.markdown, {
      headers: {
        'Content-Type': 'text/markdown; charset=utf-8',
        Link: `<${absoluteUrl(path)}>; rel="canonical"`,
        Vary: 'Accept',
      },
    });
  },
});

function text(body: string, type: string): Response {
  return new Response(body, { headers: { 'Content-Type': `${type}; charset=utf-8` } });
}

/** /llms.txt: the site for language models, every public page with its twin (llmstxt.org). */
export const llmsTxtRoute = defineRoute(ROUTES['/llms.txt'], {
  GET: () => {
    const pages = allPages();
    const home = pages.find((p) => p.path === '/');
    const section = (title: string, list: typeof pages) =>
      [`## ${title}`, '', ...list.map((p) => `- [${p.title}](${absoluteUrl(twinPath(p.path))}): ${p.description}`), ''].join('\n');
    const docs = pages.filter((p) => p.path.startsWith('/docs'));
    const product = pages.filter((p) => !p.path.startsWith('/docs'));
    const body = [
      `# ${home?.title ?? 'Monetize'}`,
      '',
      `> ${home?.description ?? 'A monetization platform for AI apps and SaaS.'}`,
      '',
      `Every page below is markdown. The full text of all of them is at ${absoluteUrl('/llms-full.txt')}; the REST API is described at ${absoluteUrl('/api/v1/openapi.json')}.`,
      '',
      section('Product', product),
      section('Docs', docs),
    ].join('\n');
    return text(body, 'text/plain');
  },
});

export const llmsFullTxtRoute = defineRoute(ROUTES['/llms-full.txt'], {
  GET: () =>
    text(
      allPages()
        .map((p) => `<!-- ${absoluteUrl(p.path)} -->\n${p.markdown.trim()}\n`)
        .join('\n---\n\n'),
      'text/plain',
    ),
});

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const sitemapRoute = defineRoute(ROUTES['/sitemap.xml'], {
  GET: () =>
    text(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        ...allPages().map((p) => `  <url><loc>${xmlEscape(absoluteUrl(p.path))}</loc></url>`),
        '</urlset>',
        '',
      ].join('\n'),
      'application/xml',
    ),
});

/** Signed-in, consent and machine endpoints are not for crawlers. */
export const NOT_INDEXED = ['/api/', '/oauth/', '/signin', '/signup', '/dashboard', '/mcp', '/a2a', '/ask', '/agent/', '/functions/', '/markdown/'];

export const robotsRoute = defineRoute(ROUTES['/robots.txt'], {
  GET: () =>
    text(
      ['User-agent: *', 'Allow: /', ...NOT_INDEXED.map((p) => `Disallow: ${p}`), '', `Sitemap: ${absoluteUrl('/sitemap.xml')}`, ''].join('\n'),
      'text/plain',
    ),
});
