/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time,
  // not bundled (DESIGN.md, environment notes).
  serverExternalPackages: ['@electric-sql/pglite'],
  // The migrator reads the SQL files at run time; ship them with every server function.
  outputFileTracingIncludes: { '/**': ['./supabase/migrations/**/*.sql'] },
  poweredByHeader: false,
  reactStrictMode: true,
  // Tests, e2e runs and benchmarks build into their own folder so they never
  // fight a developer's `npm run dev` over `.next/`.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
