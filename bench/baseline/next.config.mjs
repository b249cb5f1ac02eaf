import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The repository root. `next` and React resolve from its node_modules, so Turbopack's root must
// contain it: named here rather than left to inference from the lockfile.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The benchmark's baseline: a bare Next.js route handler, served with `next start` and
 * measured next to our app by scripts/bench.mjs, so the table shows Next's own cost apart from ours.
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  poweredByHeader: false,
  turbopack: { root },
  outputFileTracingRoot: root,
};

export default nextConfig;
