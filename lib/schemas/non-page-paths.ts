/**
 * The paths no site page may take, as the fewest prefixes: the route registry's (`nonPagePaths` in
 * ./registry.ts) with every path below another one left out, which matches the same requests.
 * Written out for next.config.ts, which Next loads at every start of `npm run dev`: the registry
 * brings every schema of the API and zod with it, about 0.15 s of each start
 * (`npm run dev:first-run`). ./non-page-paths.test.ts holds it equal to the registry's.
 */
export const NON_PAGE_PREFIXES: readonly string[] = [
  '/a2a',
  '/agent/identity',
  '/api/auth',
  '/api/cron/data-jobs',
  '/api/demo/chat',
  '/api/v1',
  '/api/webhooks/stripe',
  '/ask',
  '/dashboard/ads/creatives/upload',
  '/docs/mcp',
  '/downloads',
  '/functions/v1',
  '/markdown',
  '/mcp',
  '/media',
  '/oauth',
];
