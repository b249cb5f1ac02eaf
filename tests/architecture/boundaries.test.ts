import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The rules that keep the code's shape, shown holding on the tree and failing on deliberate
 * breaches: the wings, each importing only the rows below it and never a sibling, with no import
 * circle between modules (.dependency-cruiser.cjs) nor between folders
 * (.dependency-cruiser-folders.cjs); and the one way to the database with statements that cannot
 * be mis-escaped (eslint.config.mjs).
 */

const root = path.resolve(__dirname, '../..');
const load = createRequire(import.meta.url);
const modules = load(path.join(root, '.dependency-cruiser.cjs')) as IConfiguration;
const folders = load(path.join(root, '.dependency-cruiser-folders.cjs')) as IConfiguration;

async function violations(config: IConfiguration, files: string[], baseDir: string, withTsConfig: boolean): Promise<string[]> {
  const options = { ...config.options, tsConfig: withTsConfig ? config.options?.tsConfig : undefined };
  const result = await cruise(files, { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe('the wings', () => {
  it('hold on the tree: no import up a row or across to a sibling, no circle between modules', async () => {
    expect(await violations(modules, ['lib', 'app', 'proxy.ts', 'instrumentation.ts'], root, true)).toEqual([]);
  }, 60_000);

  it('hold on the tree: no circle between folders', async () => {
    expect(await violations(folders, ['lib'], root, true)).toEqual([]);
  }, 60_000);

  describe('on a tree that breaks them', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wings-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    };
    // A sibling: ads reaching into data, on the same row.
    write('lib/ads/serving/pick.ts', "import { r } from '../../data/records';\nexport const pick = r;\n");
    write('lib/data/records.ts', 'export const r = 1;\n');
    // A row above: money reaching up into ads, and the platform into identity.
    write('lib/money/payouts/pay.ts', "import { pick } from '../../ads/serving/pick';\nexport const pay = pick;\n");
    write('lib/platform/http/kernel.ts', "import { key } from '../../identity/keys/key';\nexport const k = key;\n");
    write('lib/identity/keys/key.ts', 'export const key = 1;\n');
    // Contracts that reach into a wing; a wing that reaches the root; the root that reaches app/.
    write('lib/schemas/x.ts', "import { pick } from '../ads/serving/pick';\nexport const x = pick;\n");
    write('lib/publisher/forms.ts', "import { s } from '../services';\nexport const f = s;\n");
    write('lib/services.ts', 'export const s = 1;\n');
    write('lib/routes/r.ts', "import { page } from '../../app/page';\nexport const r = page;\n");
    write('app/page.ts', 'export const page = 1;\n');
    // A circle between two modules of one wing.
    write('lib/ops/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('lib/ops/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    // A circle between two folders of one wing, with no circle between their modules.
    write('lib/account/reads/one.ts', "import { two } from '../views/two';\nexport const one = two;\n");
    write('lib/account/views/two.ts', 'export const two = 2;\n');
    write('lib/account/views/three.ts', "import { four } from '../reads/four';\nexport const three = four;\n");
    write('lib/account/reads/four.ts', 'export const four = 4;\n');

    it('finds each breach of the module rules, by rule', async () => {
      const found = await violations(modules, ['lib', 'app'], dir, false);
      expect(found).toEqual(
        expect.arrayContaining([
          'ads-imports-down-only: lib/ads/serving/pick.ts → lib/data/records.ts',
          'money-imports-down-only: lib/money/payouts/pay.ts → lib/ads/serving/pick.ts',
          'platform-imports-down-only: lib/platform/http/kernel.ts → lib/identity/keys/key.ts',
          'schemas-imports-down-only: lib/schemas/x.ts → lib/ads/serving/pick.ts',
          'publisher-imports-down-only: lib/publisher/forms.ts → lib/services.ts',
          'root-below-app: lib/routes/r.ts → app/page.ts',
          'no-circular: lib/ops/a.ts → lib/ops/b.ts',
        ]),
      );
      expect(found.filter((v) => v.startsWith('no-circular') && v.includes('lib/account/'))).toEqual([]);
    }, 60_000);

    it('finds the circle between folders', async () => {
      const found = await violations(folders, ['lib'], dir, false);
      expect(found).toEqual(expect.arrayContaining(['no-folder-circle: lib/account/reads → lib/account/views']));
    }, 60_000);
  });
});

describe('the one way to the database', () => {
  const eslint = new ESLint({ cwd: root });
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result!.messages.map((m) => `${m.ruleId}: ${m.message.split(':')[0]}`);
  };

  it('refuses a statement made from a string, the engine, and the service role outside its allowlist', async () => {
    const code = [
      "import { asService } from '../platform/db/roles';",
      "import type { Engine } from '../platform/db/engine';",
      "import { sql } from '../platform/db/sql';",
      'export const splice = (text: string) => sql([text] as unknown as TemplateStringsArray);',
      'export const service = asService;',
      'export type E = Engine;',
    ].join('\n');
    expect(await lint('lib/ads/serving/probe.ts', code)).toEqual([
      "no-restricted-imports: 'asService' import from '../platform/db/roles' is restricted from being used by a pattern. The service role bypasses row-level security",
      "no-restricted-imports: '../platform/db/engine' import is restricted from being used by a pattern. Only lib/platform/db holds the engine",
      'no-restricted-syntax: sql is a template tag',
    ]);
  });

  it('lets an allowlisted file run as the service role, still without the engine', async () => {
    const code =
      "import { asService } from '../platform/db/roles';\nimport type { Engine } from '../platform/db/engine';\nexport const s = asService;\nexport type E = Engine;\n";
    expect(await lint('lib/ads/serving/rollup.ts', code)).toEqual([
      "no-restricted-imports: '../platform/db/engine' import is restricted from being used by a pattern. Only lib/platform/db holds the engine",
    ]);
  });

  it('accepts statements written with the tag', async () => {
    const code =
      "import { as } from '../platform/db/roles';\nimport { sql } from '../platform/db/sql';\nexport const q = (db: Parameters<typeof as>[0], id: string) => as(db, 'anon').query(sql`select ${id}::uuid`);\n";
    expect(await lint('lib/ads/serving/probe.ts', code)).toEqual([]);
  });

  it('refuses a row typed by hand, and accepts a row checked by its schema (issue 40)', async () => {
    const head = "import { as } from '../platform/db/roles';\nimport { sql } from '../platform/db/sql';\n";
    const unchecked = `${head}export const q = (db: Parameters<typeof as>[0]) => as(db, 'anon').query<{ id: string }>(sql\`select id from public.apps\`);\n`;
    expect(await lint('lib/ads/serving/probe.ts', unchecked)).toEqual(['no-restricted-syntax: Check a row with its schema']);
    const checked = `import { z } from 'zod';\n${head}const row = z.object({ id: z.string() });\nexport const q = (db: Parameters<typeof as>[0]) => as(db, 'anon').query(sql\`select id from public.apps\`, row);\n`;
    expect(await lint('lib/ads/serving/probe.ts', checked)).toEqual([]);
  });
});
