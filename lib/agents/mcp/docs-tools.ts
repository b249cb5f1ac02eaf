import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { pageByPath, twinPath, type Page } from '../../docs/content/pages';
import { absoluteUrl } from '../../platform/http/responses';
import { pricingFor, type LivePricing } from '../../money/pricing/settings';
import { pricingBody, pricingQuery } from '../../schemas/pricing';
import { searchResult } from '../../schemas/search';
import { resultOf, searchPages } from '../../docs/search/engine';
import { env } from '../../platform/env';
import { READ_ONLY, structured, toolError } from './tools';

/**
 * The public docs server at `/docs/mcp`: the site's search, its pages as markdown and the live
 * pricing, for agents without an account. Each tool answers exactly what its REST twin does.
 */

const searchOutput = z.object({
  query: z.string(),
  count: z.number().int().describe('How many pages match in all.'),
  results: z.array(searchResult),
});

const pageOutput = z.object({
  path: z.string().describe('The page’s path on the site, such as /docs/payouts.'),
  url: z.string().url(),
  markdown_url: z.string().url().describe('The markdown twin; `markdown` is its exact content.'),
  title: z.string(),
  description: z.string(),
  markdown: z.string(),
});

/**
 * The page a `get_page` argument names: a site path (`/docs/payouts`), its twin (`/docs/payouts.md`,
 * `/index.md`) or either as an absolute URL of this service. Anything else names no page.
 */
export function pageFor(ref: string): Page | undefined {
  let path = ref.trim();
  const base = env().PUBLIC_BASE_URL;
  if (/^https?:\/\//i.test(path)) {
    let url: URL;
    try {
      url = new URL(path);
    } catch {
      return undefined;
    }
    if (url.origin !== new URL(base).origin) return undefined;
    path = url.pathname;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  path = path.replace(/#.*$/, '').replace(/\?.*$/, '');
  if (path === '/index.md') path = '/';
  else if (path.endsWith('.md')) path = path.slice(0, -3);
  return pageByPath(path);
}

export function docsServer(pricing: LivePricing): McpServer {
  const server = new McpServer(
    { name: 'monetize-docs', title: 'Monetize docs', version: '1.0.0' },
    {
      instructions:
        'Public knowledge about Monetize: search the docs, read a page as markdown, get the live pricing. No credential needed. For a publisher’s own data, use the account server at /mcp.',
    },
  );

  server.registerTool(
    'search_docs',
    {
      title: 'Search the docs',
      description: 'Searches the docs and product pages, best match first; same as GET /api/v1/search. Read a result in full with get_page.',
      inputSchema: {
        query: z.string().trim().min(1).max(200).describe('What to look for, 1 to 200 characters.'),
        limit: z.number().int().min(1).max(20).default(5).describe('How many results, 1 to 20.'),
      },
      outputSchema: searchOutput,
      annotations: READ_ONLY,
    },
    async ({ query, limit }) => {
      const hits = searchPages(query);
      return structured({ query, count: hits.length, results: hits.slice(0, limit).map(resultOf) });
    },
  );

  server.registerTool(
    'get_page',
    {
      title: 'Get a page',
      description:
        'One public page as markdown (its markdown twin), by path (/docs/payouts), twin path (/docs/payouts.md) or URL. The text content is the markdown itself.',
      inputSchema: { path: z.string().min(1).max(2048).describe('A page path such as /docs/payouts, or a URL on this site.') },
      outputSchema: pageOutput,
      annotations: READ_ONLY,
    },
    async ({ path }) => {
      const page = pageFor(path);
      if (!page) {
        return toolError(`No public page at ${path}. search_docs finds pages; /llms.txt lists them all.`);
      }
      const body = {
        path: page.path,
        url: absoluteUrl(page.path),
        markdown_url: absoluteUrl(twinPath(page.path)),
        title: page.title,
        description: page.description,
        markdown: page.markdown,
      };
      return structured(body, page.markdown);
    },
  );

  server.registerTool(
    'get_pricing',
    {
      title: 'Get pricing',
      description:
        'The live prices: revenue shares, advertiser CPMs, data-set prices, the minimum payout. Same as GET /api/v1/pricing; `live` is false when the defaults are shown.',
      inputSchema: { audience: pricingQuery.shape.audience },
      outputSchema: pricingBody,
      annotations: READ_ONLY,
    },
    async ({ audience }) => structured(pricingBody.parse(pricingFor(await pricing.values(), audience))),
  );
  return server;
}
