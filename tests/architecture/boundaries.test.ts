import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The two rules that keep the code's shape, shown holding on the tree and failing on deliberate
 * breaches: the layers and no import circle (.dependency-cruiser.cjs), and the one way to the
 * database with statements that cannot be mis-escaped (eslint.config.mjs).
 */

const root = path.resolve(__dirname, '../..');
const config = createRequire(import.meta.url)(path.join(root, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(files: string[], baseDir: string, withTsConfig: boolean): Promise<string[]> {
  const options = { ...config.options, tsConfig: withTsConfig ? config.options?.tsConfig : undefined };
  const result = await cruise(files, { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe('the layers', () => {
  it('hold on the tree: no import circle, no import up a layer', async () => {
    expect(await violations(['lib', 'app', 'proxy.ts', 'instrumentation.ts'], root, true)).toEqual([]);
  }, 60_000);

  describe('on a tree that breaks them', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'layers-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    };
    write('lib/platform/http/kernel.ts', "import { a } from '../../sdk/a';\nexport const k = a;\n");
    write('lib/sdk/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('lib/sdk/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    write('lib/sdk/c.ts', "import { s } from '../services';\nexport const c = s;\n");
    write('lib/services.ts', 'export const s = 1;\n');
    write('lib/schemas/x.ts', "import { a } from '../sdk/a';\nexport const x = a;\n");
    write('lib/routes/r.ts', "import { page } from '../../app/page';\nexport const r = page;\n");
    write('app/page.ts', 'export const page = 1;\n');

    it('finds each breach, by rule', async () => {
      const found = await violations(['lib', 'app'], dir, false);
      expect(found).toEqual(
        expect.arrayContaining([
          'no-circular: lib/sdk/a.ts → lib/sdk/b.ts',
          'platform-is-the-bottom: lib/platform/http/kernel.ts → lib/sdk/a.ts',
          'domains-below-the-root: lib/sdk/c.ts → lib/services.ts',
          'contracts-above-platform-only: lib/schemas/x.ts → lib/sdk/a.ts',
          'root-below-app: lib/routes/r.ts → app/page.ts',
        ]),
      );
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
    expect(await lint('lib/sdk/probe.ts', code)).toEqual([
      "no-restricted-imports: 'asService' import from '../platform/db/roles' is restricted from being used by a pattern. The service role bypasses row-level security",
      "no-restricted-imports: '../platform/db/engine' import is restricted from being used by a pattern. Only lib/platform/db holds the engine",
      'no-restricted-syntax: sql is a template tag',
    ]);
  });

  it('lets an allowlisted file run as the service role, still without the engine', async () => {
    const code =
      "import { asService } from '../platform/db/roles';\nimport type { Engine } from '../platform/db/engine';\nexport const s = asService;\nexport type E = Engine;\n";
    expect(await lint('lib/sdk/rollup.ts', code)).toEqual([
      "no-restricted-imports: '../platform/db/engine' import is restricted from being used by a pattern. Only lib/platform/db holds the engine",
    ]);
  });

  it('accepts statements written with the tag', async () => {
    const code =
      "import { as } from '../platform/db/roles';\nimport { sql } from '../platform/db/sql';\nexport const q = (db: Parameters<typeof as>[0], id: string) => as(db, 'anon').query(sql`select ${id}::uuid`);\n";
    expect(await lint('lib/sdk/probe.ts', code)).toEqual([]);
  });
});
