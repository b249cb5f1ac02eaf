import type { NextConfig } from 'next';
import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_BUILD } from 'next/constants';
import { COMMON_SECURITY_HEADERS } from './lib/platform/http/security-headers';
import { NON_PAGE_PREFIXES } from './lib/schemas/non-page-paths';
import { ensureStyles, watchStyles } from './lib/platform/styles/tailwind';

/**
 * Markdown twins: `<path>.md`, and any page asked for with `Accept: text/markdown`, are answered
 * by app/markdown/[[...slug]]/route.ts. The rewrites leave alone every path the route registry
 * declares and the paths below it (lib/schemas/non-page-paths.ts, as the fewest prefixes), and
 * Next's own `_next/`. They run `afterFiles`: Next tests them only when no route file matches the
 * path exactly, so the API routes never pay for them. Site pages come from the catch-all page,
 * which Next matches after these rules; the home page, a route file of its own, has a
 * `beforeFiles` rule.
 */
/** A request asking for markdown (the twins by `Accept`). */
const wantsMarkdown = [{ type: 'header' as const, key: 'accept', value: '(.*)text/markdown(.*)' }];

const notPages = `(?!(?:${[...NON_PAGE_PREFIXES.map((p) => p.slice(1)), '_next'].join('|')})(?:[/.]|$))`;

export const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  // The others are server-only libraries Node loads as they are: bundling them gained nothing and
  // made every first compile of a page the longer, measured by `npm run dev:first-run` (zod, jose
  // and postgres are in every page's server code; the S3 upload helper alone is some 300 modules;
  // next-auth, whose session decoding the root layout uses, brings Babel's helpers and uuid).
  serverExternalPackages: [
    '@electric-sql/pglite',
    'stripe',
    'highlight.js',
    'marked',
    'hyparquet-writer',
    '@aws-sdk/lib-storage',
    'zod',
    'jose',
    'postgres',
    '@upstash/redis',
    '@upstash/ratelimit',
    'otpauth',
    'stemmer',
    'next-auth',
  ],
  // The migrator reads the SQL files at run time; ship them with every server function.
  outputFileTracingIncludes: { '/**': ['./supabase/migrations/**/*.sql', './content/**/*.md'] },
  poweredByHeader: false,
  // Next would answer `/api/v1/` with its own bare 308; an API path with a trailing slash is
  // answered by its route instead (with the API's headers), and only pages are redirected.
  skipTrailingSlashRedirect: true,
  async redirects() {
    return [{ source: `/:path(${notPages}.+)/`, destination: '/:path', permanent: true }];
  },
  async headers() {
    return [
      {
        // nosniff and Referrer-Policy on every answer: pages, API, files (lib/platform/http/security-headers.ts;
        // the pages' own policy is set in proxy.ts). Not on /oauth/authorize, which sets its own
        // Referrer-Policy (same-origin on the consent page, no-referrer on its redirects): Next
        // keeps a header configured here over the one a route sends.
        source: '/:path((?!oauth/authorize$).*)',
        headers: Object.entries(COMMON_SECURITY_HEADERS).map(([key, value]) => ({ key, value })),
      },
      {
        // The browser SDK's script, loaded by publishers' pages on other origins with its
        // Subresource Integrity hash, so in CORS mode: it must say it may be read anywhere.
        source: '/sdk/:file*',
        headers: [
          { key: 'Access-Control-Allow-Origin', value: '*' },
          { key: 'Cross-Origin-Resource-Policy', value: 'cross-origin' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
        ],
      },
      // A released version never changes (packages/sdk/build.mjs); /sdk/v1.js follows the latest.
      { source: '/sdk/v1.js', headers: [{ key: 'Cache-Control', value: 'public, max-age=300, must-revalidate' }] },
      // The conversion tag (advertisers' pages), one file kept compatible within v1.
      { source: '/sdk/conversion-v1.js', headers: [{ key: 'Cache-Control', value: 'public, max-age=300, must-revalidate' }] },
      { source: '/sdk/:version(v\\d+\\.\\d+\\.\\d+\\.js)', headers: [{ key: 'Cache-Control', value: 'public, max-age=31536000, immutable' }] },
    ];
  },
  async rewrites() {
    return {
      // The home page is a route file of its own (app/page.tsx), and Next tests `afterFiles` rules
      // only for paths no route file matches: its twin asked for with `Accept` is rewritten before
      // the route files, for `/` alone.
      beforeFiles: [{ source: '/', has: wantsMarkdown, destination: '/markdown' }],
      afterFiles: [
        // `/index.md` becomes /markdown/index, which the twin route reads as the home page.
        { source: `/:path(${notPages}[a-z0-9/-]+)\\.md`, destination: '/markdown/:path' },
        {
          source: `/:path(${notPages}[a-z0-9/-]*)`,
          has: wantsMarkdown,
          destination: '/markdown/:path',
        },
      ],
    };
  },
  experimental: {
    // Every server action takes a body of at most 1 MB (Next's default, said here so that it is
    // not raised again by accident): no console form needs more, and a larger limit would let any
    // signed-in account make the server read, parse and hold that much per form (issue 39). The
    // one form with large files, a creative's image (2 MB) and video (10 MB), posts to a route of
    // its own, POST /dashboard/ads/creatives/upload, which reads at most 12.5 MB
    // (lib/ads/advertisers/creative-upload.ts). The proxy does not run for that route (proxy.ts), so
    // the size up to which the proxy holds a request's body (`proxyClientMaxBodySize`, 10 MB by
    // default) is left at Next's default: what passes through it is the pages' posts, which the
    // server actions' limit refuses past 1 MB anyway.
    serverActions: { bodySizeLimit: '1mb' },
  },
  reactStrictMode: true,
  // Tests, e2e runs and benchmarks build into their own folder so they never
  // fight a developer's `npm run dev` over `.next/`.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

/**
 * Whenever Next loads this file to compile (`npm run dev`, `next build`), the site's stylesheet is
 * built first if its inputs changed, and in development kept built while the server runs
 * (lib/platform/styles/tailwind.ts says why Tailwind runs here and not as a PostCSS plugin). A
 * production server (`next start`) serves what the build compiled, and reads no file of app/.
 */
export default async function config(phase: string): Promise<NextConfig> {
  if (phase === PHASE_DEVELOPMENT_SERVER || phase === PHASE_PRODUCTION_BUILD) await ensureStyles();
  if (phase === PHASE_DEVELOPMENT_SERVER) watchStyles();
  return nextConfig;
}
