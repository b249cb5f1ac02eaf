// Builds the SDK: ESM for bundlers (dist/index.js, dist/react.js, with type declarations) and the
// one-file script that the service serves at /sdk/v<version>.js (never changed once released:
// a change to the source needs a new version in package.json) and at /sdk/v1.js (the latest
// 1.x), both committed so that a fresh clone serves them. The docs pages that show the script
// tag get its Subresource Integrity hash.
// `node packages/sdk/build.mjs` (or `npm run sdk:build` at the root). esbuild bundles; tsc writes
// the declarations.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
/** The package's version: the script is also served at /sdk/v<version>.js, which never changes. */
export const VERSION = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).version;
/** The script at its version's URL (the one the docs give with its hash), and at /sdk/v1.js, the latest 1.x. */
export const SCRIPT_PATH = path.join(root, `public/sdk/v${VERSION}.js`);
export const LATEST_PATH = path.join(root, 'public/sdk/v1.js');
/** What the console fills into its ready-to-paste snippets: the script's URL path and its hash. */
export const RELEASE_PATH = path.join(root, 'lib/publisher/sdk-release.json');
/** The docs pages that show the script tag, with its integrity hash (rewritten by the build). */
export const DOCS_WITH_SCRIPT_TAG = ['content/docs/sdk-integration.md', 'content/docs/quickstart.md', 'packages/sdk/README.md'].map((p) => path.join(root, p));

const common = { bundle: true, platform: 'browser', target: 'es2020', legalComments: 'none', logLevel: 'warning' };

/** The script build's bytes (an IIFE that sets `window.Monetize`). */
export async function buildScript() {
  const result = await build({ ...common, entryPoints: [path.join(here, 'src/script.ts')], format: 'iife', minify: true, write: false });
  return Buffer.from(result.outputFiles[0].contents);
}

/** `sha384-…`, as a `<script integrity>` attribute wants it. */
export function integrity(bytes) {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** The ESM builds into `outdir`. */
export async function buildModules(outdir = path.join(here, 'dist')) {
  await build({ ...common, entryPoints: { index: path.join(here, 'src/index.ts') }, format: 'esm', outdir });
  await build({
    ...common,
    entryPoints: { react: path.join(here, 'src/react.tsx') },
    format: 'esm',
    outdir,
    jsx: 'automatic',
    external: ['react', 'react/jsx-runtime'],
    // The React component runs in the browser: Next.js's app router needs to be told.
    banner: { js: "'use client';" },
  });
}

/** The type declarations into `outdir`; answers tsc's output when it fails. */
export function buildDeclarations(outdir = path.join(here, 'dist')) {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json'), '--outDir', outdir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}${r.stderr}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const script = await buildScript();
  fs.mkdirSync(path.dirname(SCRIPT_PATH), { recursive: true });
  fs.writeFileSync(SCRIPT_PATH, script);
  fs.writeFileSync(LATEST_PATH, script);
  fs.writeFileSync(RELEASE_PATH, `${JSON.stringify({ version: VERSION, path: `/sdk/v${VERSION}.js`, integrity: integrity(script) }, null, 2)}\n`);
  for (const page of DOCS_WITH_SCRIPT_TAG) {
    const text = fs.readFileSync(page, 'utf8');
    // The tag names this version's file and its hash (a new release rewrites both).
    fs.writeFileSync(
      page,
      text.replace(/\/sdk\/v\d+\.\d+\.\d+\.js" integrity="sha384-[A-Za-z0-9+/=]+"/g, `/sdk/v${VERSION}.js" integrity="${integrity(script)}"`),
    );
  }
  await buildModules();
  buildDeclarations();
  console.log(`public/sdk/v${VERSION}.js and v1.js: ${script.length} bytes, ${integrity(script)}`);
}
