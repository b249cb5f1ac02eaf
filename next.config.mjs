/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time,
  // not bundled (DESIGN.md, environment notes).
  serverExternalPackages: ['@electric-sql/pglite'],
  // The migrator reads the SQL files at run time; ship them with every server function.
  outputFileTracingIncludes: { '/**': ['./supabase/migrations/**/*.sql', './content/**/*.md'] },
  poweredByHeader: false,
  // Markdown twins (DESIGN.md): `<path>.md`, and any page asked for with `Accept: text/markdown`,
  // are answered by app/markdown/[[...slug]]/route.ts. `afterFiles`: Next tests these rules only
  // when no route file matches the path exactly, so the API routes never pay for them (as
  // `beforeFiles` they were tested on every request; four such rules cost ~7% of
  // /api/v1/pricing's throughput in `npm run bench`). Site pages come from the catch-all page,
  // which Next matches after these rules.
  async rewrites() {
    return {
      afterFiles: [
        // `/index.md` becomes /markdown/index, which the twin route reads as the home page.
        { source: '/:path((?!api/|markdown|_next/)[a-z0-9/-]+)\\.md', destination: '/markdown/:path' },
        {
          source: '/:path((?!api/|markdown|_next/|oauth/|mcp|docs/mcp|ask|a2a|agent/|functions/|\\.well-known/)[a-z0-9/-]*)',
          has: [{ type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' }],
          destination: '/markdown/:path',
        },
      ],
    };
  },
  reactStrictMode: true,
  // Tests, e2e runs and benchmarks build into their own folder so they never
  // fight a developer's `npm run dev` over `.next/`.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
