// Builds @monetize/server into dist/: one ES module for Node 20 and edge runtimes (esbuild), and
// its type declarations (tsc). `node packages/server/build.mjs` (or `npm run server:build` at the
// root). Not committed: build it, then `npm pack` it, to use it in another app.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** The module into `outdir`: no dependencies, and nothing of Node's, so that edge runtimes load it too. */
export async function buildModule(outdir = path.join(here, 'dist')) {
  await build({
    entryPoints: { index: path.join(here, 'src/index.ts') },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outdir,
    legalComments: 'none',
    logLevel: 'warning',
  });
}

/** The type declarations into `outdir`; throws tsc's output when it fails. */
export function buildDeclarations(outdir = path.join(here, 'dist')) {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json'), '--outDir', outdir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}${r.stderr}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildModule();
  buildDeclarations();
  console.log('packages/server/dist: index.js and index.d.ts');
}
