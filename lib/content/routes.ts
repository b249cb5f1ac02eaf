import { json, method, type RouteSpec } from '../http/kernel';
import { decodeCursor, paginate } from '../http/cursor';
import { ApiError } from '../http/errors';
import { absoluteUrl, badRequest } from '../http/responses';
import { operationsOf } from '../openapi/operations';
import { pagesBody, pagesQuery } from '../schemas/pages';
import { allPages, pageByPath, twinPath } from './pages';

/** GET /api/v1/pages: every public, indexable page with its markdown twin. */
export const pagesRoute: RouteSpec = {
  name: 'pages',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({
      query: pagesQuery,
      cache: 'public, max-age=300',
      handler: async ({ query }) => {
        const binding = `pages\n${query.limit}`;
        const offset = query.cursor ? await decodeCursor(binding, query.cursor) : 0;
        const pages = allPages();
        const { page, pagination } = await paginate(pages, offset, query.limit, binding);
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
    }),
  },
};

export const pagesOperations = operationsOf('/api/v1/pages', pagesRoute, {
  GET: {
    operationId: 'listPages',
    summary: 'List the public pages and their markdown twins',
    tags: ['Public'],
    security: 'none',
    responses: { 200: { description: 'One page of the list.', schema: pagesBody }, 400: badRequest },
  },
});

/**
 * The markdown twin of a page, at `<path>.md` and for `Accept: text/markdown` (both rewritten
 * to /markdown/<path> in next.config.mjs).
 */
export const markdownTwinRoute: RouteSpec = {
  name: 'markdown-twin',
  cors: 'public',
  methods: {
    GET: method({
      cache: 'public, max-age=300',
      handler: ({ params }) => {
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
    }),
  },
};

function text(body: string, type: string): Response {
  return new Response(body, { headers: { 'Content-Type': `${type}; charset=utf-8` } });
}

/** /llms.txt: the site for language models, every public page with its twin (llmstxt.org). */
export const llmsTxtRoute: RouteSpec = {
  name: 'llms.txt',
  cors: 'public',
  methods: {
    GET: method({
      cache: 'public, max-age=300',
      handler: () => {
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
    }),
  },
};

export const llmsFullTxtRoute: RouteSpec = {
  name: 'llms-full.txt',
  cors: 'public',
  methods: {
    GET: method({
      cache: 'public, max-age=300',
      handler: () =>
        text(
          allPages()
            .map((p) => `<!-- ${absoluteUrl(p.path)} -->\n${p.markdown.trim()}\n`)
            .join('\n---\n\n'),
          'text/plain',
        ),
    }),
  },
};

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const sitemapRoute: RouteSpec = {
  name: 'sitemap.xml',
  methods: {
    GET: method({
      cache: 'public, max-age=300',
      handler: () =>
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
    }),
  },
};

/** Signed-in, consent and machine endpoints are not for crawlers. */
export const NOT_INDEXED = ['/api/', '/oauth/', '/signin', '/signup', '/dashboard', '/mcp', '/a2a', '/ask', '/agent/', '/functions/', '/markdown/'];

export const robotsRoute: RouteSpec = {
  name: 'robots.txt',
  methods: {
    GET: method({
      cache: 'public, max-age=3600',
      handler: () =>
        text(['User-agent: *', 'Allow: /', ...NOT_INDEXED.map((p) => `Disallow: ${p}`), '', `Sitemap: ${absoluteUrl('/sitemap.xml')}`, ''].join('\n'), 'text/plain'),
    }),
  },
};
