import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the package, without declarations.
import { buildDeclarations, buildScript, DOCS_WITH_SCRIPT_TAG, integrity, LATEST_PATH, SCRIPT_PATH, VERSION } from '../build.mjs';
import { VERSION as CLIENT_VERSION } from '../src/client';

const root = path.resolve(__dirname, '../../..');
/** The budget for the script build, gzipped: what a page pays to show ads. */
const SCRIPT_BUDGET_GZIP_BYTES = 8 * 1024;

/**
 * Every released script and its Subresource Integrity hash, as pages embed it: a released version
 * never changes (pages pin it with this hash, and it is served `immutable`). A new release adds
 * its line here.
 */
const RELEASED: Record<string, string> = {
  '1.0.0': 'sha384-skrtN1sqHWrKwKOPuGp1iOwsdP5d16jy48MuoFOQCryHoBLqIS8rHDIxATM4ssVO',
  '1.1.0': 'sha384-hPrE05bDggo03+e0x6hyt90y/MkAk0gntH1CLf4WrMiNapFDB1sYbuo7iAT1QIkO',
  '1.2.0': 'sha384-H7vrU8q/fFuPOArZkl5om9saUOuM0Elm92Zg4Rrd/MJL0DtuyfyoJQxv6vQA90A9',
  '1.3.0': 'sha384-nqc0UGNExJOokhk+mcRuvRQH8zm7/IlgF6onMi9342cSH1qcqxiRY/eZsKTdm8lY',
  '1.4.0': 'sha384-cbxZr7V29qb/U0ZV1/c+rxKCyLGb+8a6EScHkWWkTIV3HoOHwitN8Dnb15/VGrQ2',
  '1.5.0': 'sha384-0GGJI+jG9cQkuIHHTDdxhc0QOFenQHSw+Hd7+yhvDmj4FStwGTgrUx/80KCuDpgy',
};

describe('the SDK build', () => {
  it('serves, at /sdk/v<version>.js and /sdk/v1.js, exactly what the source builds to', async () => {
    expect(CLIENT_VERSION, 'src/client.ts VERSION is the package.json version').toBe(VERSION);
    const built: Buffer = await buildScript();
    expect(
      fs.existsSync(SCRIPT_PATH) && fs.readFileSync(SCRIPT_PATH).equals(built),
      `public/sdk/v${VERSION}.js is not the build of packages/sdk/src. A released version never changes: give the package a new version (package.json and VERSION in src/client.ts), run \`npm run sdk:build\` and commit the new file`,
    ).toBe(true);
    expect(fs.readFileSync(LATEST_PATH).equals(built), 'public/sdk/v1.js is the latest build: run `npm run sdk:build`').toBe(true);
  });

  it('never changes a released script: each one is served with the bytes its hash names', () => {
    const served = fs.readdirSync(path.join(root, 'public/sdk')).filter((f) => /^v\d+\.\d+\.\d+\.js$/.test(f));
    expect(served.sort()).toEqual(
      Object.keys(RELEASED)
        .map((v) => `v${v}.js`)
        .sort(),
    );
    for (const [version, hash] of Object.entries(RELEASED)) {
      expect(integrity(fs.readFileSync(path.join(root, `public/sdk/v${version}.js`))), `public/sdk/v${version}.js`).toBe(hash);
    }
    expect(RELEASED[VERSION as string], `the current version, ${VERSION as string}, is listed as released`).toBeDefined();
  });

  it(`keeps the script within ${SCRIPT_BUDGET_GZIP_BYTES} bytes gzipped`, () => {
    const size = gzipSync(fs.readFileSync(SCRIPT_PATH), { level: 9 }).length;
    expect(size).toBeLessThanOrEqual(SCRIPT_BUDGET_GZIP_BYTES);
  });

  it('gives the docs the script tag with its Subresource Integrity hash', () => {
    const hash: string = integrity(fs.readFileSync(SCRIPT_PATH));
    const src = `/sdk/v${VERSION as string}\\.js`;
    for (const page of DOCS_WITH_SCRIPT_TAG as string[]) {
      const text = fs.readFileSync(page, 'utf8');
      expect(text, page).toMatch(
        new RegExp(`<script src="https://[A-Za-z.-]+${src}" integrity="${hash.replace(/[+/]/g, '\\$&')}" crossorigin="anonymous"></script>`),
      );
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
const ask = (question: string): void => console.log(question);
client.render('#follow-up', 'p', { format: 'sponsored_follow_up', onAsk: ask });
export function asked(shown: Ad): void {
  const action: 'ask' | 'visit' | undefined = shown.ad.action;
  if (action === 'ask') client.show('#follow-up', shown, { onAsk: ask });
}
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
      const r = spawnSync(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--lib',
          'dom,es2020',
          '--module',
          'esnext',
          '--moduleResolution',
          'bundler',
          '--target',
          'es2020',
          '--skipLibCheck',
          path.join(dir, 'app.ts'),
        ],
        {
          encoding: 'utf8',
        },
      );
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
