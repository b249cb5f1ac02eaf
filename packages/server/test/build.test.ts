import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the package, without declarations.
import { buildDeclarations, buildModule } from '../build.mjs';

/** The package as another app installs it: built, it imports with nothing of Node's and declares its types. */

const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'monetize-server-'));
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

describe('the built package', () => {
  it('is one ES module that imports nothing, and exports what the docs name, with declarations', async () => {
    await buildModule(outdir);
    buildDeclarations(outdir);
    const code = fs.readFileSync(path.join(outdir, 'index.js'), 'utf8');
    expect(code).not.toMatch(/\bfrom\s*["']|\brequire\(|import\(["']/);
    const built = await import(pathToFileURL(path.join(outdir, 'index.js')).href);
    for (const name of ['createServerClient', 'appendAd', 'adMarkdown', 'latestMessages', 'AD_DATA_PREFIX', 'DEFAULT_TIMEOUT_MS'])
      expect(built, name).toHaveProperty(name);
    const types = fs.readFileSync(path.join(outdir, 'index.d.ts'), 'utf8');
    expect(types).toContain('export declare function createServerClient');
  });
});
