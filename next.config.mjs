/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time,
  // not bundled (DESIGN.md, environment notes).
  serverExternalPackages: ['@electric-sql/pglite'],
  // The migrator reads the SQL files at run time; ship them with every server function.
  outputFileTracingIncludes: { '/**': ['./supabase/migrations/**/*.sql', './content/**/*.md'] },
  poweredByHeader: false,
  // Markdown twins (DESIGN.md): `<path>.md`, and any page asked for with `Accept: text/markdown`,
  // are answered by app/markdown/[[...slug]]/route.ts. Rewrites run in Next's router, so the API
  // routes pay nothing for them.
  async rewrites() {
    return {
      beforeFiles: [
        { source: '/index.md', destination: '/markdown' },
        { source: '/:path((?!api/|markdown|_next/)[a-z0-9/-]+)\\.md', destination: '/markdown/:path' },
        {
          source: '/',
          has: [{ type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' }],
          destination: '/markdown',
        },
        {
          source: '/:path((?!api/|markdown|_next/|oauth/|mcp|docs/mcp|ask|a2a|agent/|functions/|\\.well-known/)[a-z0-9/-]+)',
          has: [{ type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' }],
          destination: '/markdown/:path',
        },
      ],
    };
  },
  async headers() {
    // Pages vary by Accept (HTML or their markdown twin); say so to caches.
    return [{ source: '/:path((?!api/|_next/).*)', headers: [{ key: 'Vary', value: 'Accept' }] }];
  },
  reactStrictMode: true,
  // Tests, e2e runs and benchmarks build into their own folder so they never
  // fight a developer's `npm run dev` over `.next/`.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
