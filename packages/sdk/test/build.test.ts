import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the package, without declarations.
import { buildDeclarations, buildScript, DOCS_WITH_SCRIPT_TAG, integrity, SCRIPT_PATH } from '../build.mjs';

const root = path.resolve(__dirname, '../../..');
/** The budget for the script build, gzipped: what a page pays to show ads. */
const SCRIPT_BUDGET_GZIP_BYTES = 8 * 1024;

describe('the SDK build', () => {
  it('serves, at /sdk/v1.js, exactly what the source builds to (else: npm run sdk:build)', async () => {
    const built: Buffer = await buildScript();
    const served = fs.readFileSync(SCRIPT_PATH);
    expect(served.equals(built), 'public/sdk/v1.js is not the build of packages/sdk/src: run `npm run sdk:build` and commit it').toBe(true);
  });

  it(`keeps the script within ${SCRIPT_BUDGET_GZIP_BYTES} bytes gzipped`, () => {
    const size = gzipSync(fs.readFileSync(SCRIPT_PATH), { level: 9 }).length;
    expect(size).toBeLessThanOrEqual(SCRIPT_BUDGET_GZIP_BYTES);
  });

  it('gives the docs the script tag with its Subresource Integrity hash', () => {
    const hash: string = integrity(fs.readFileSync(SCRIPT_PATH));
    for (const page of DOCS_WITH_SCRIPT_TAG as string[]) {
      const text = fs.readFileSync(page, 'utf8');
      expect(text, page).toMatch(new RegExp(`<script src="https://[A-Za-z.-]+/sdk/v1\\.js" integrity="${hash.replace(/[+/]/g, '\\$&')}" crossorigin="anonymous"></script>`));
      expect(text.match(/integrity="[^"]*"/g), `${page}: one hash, the current one`).toEqual([`integrity="${hash}"`]);
    }
  });

  it('writes type declarations that an app compiles against', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monetize-sdk-types-'));
    try {
      buildDeclarations(path.join(dir, 'dist'));
      for (const file of ['index.d.ts', 'react.d.ts', 'client.d.ts', 'types.d.ts']) expect(fs.existsSync(path.join(dir, 'dist', file)), file).toBe(true);
      // An app's use of the public API, checked against the declarations alone.
      fs.writeFileSync(
        path.join(dir, 'app.ts'),
        `import { createClient, type Ad, type MonetizeEvent } from './dist/index';
const client = createClient({ key: 'pk_test_x', baseUrl: 'https://monetize.example' });
const stop: () => void = client.on((e: MonetizeEvent) => console.log(e.type, e.placementId));
const placement = client.render('#slot', 'p', { format: 'sponsored_card', fallback: 'Thanks for reading' });
placement.destroy();
stop();
export async function own(element: Element): Promise<void> {
  const ad: Ad | null = await client.getAd('p', { keywords: ['notes'] });
  if (ad) client.trackImpression(ad, element);
}
// @ts-expect-error: a format that does not exist
client.render('#slot', 'p', { format: 'banner' });
`,
      );
      const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
      const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--lib', 'dom,es2020', '--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2020', '--skipLibCheck', path.join(dir, 'app.ts')], {
        encoding: 'utf8',
      });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
