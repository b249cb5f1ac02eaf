import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildStyles, ensureStyles, STYLES_OUTPUT, stylesInputsHash, watchStyles } from './tailwind';

// A small site of its own inside the checkout (so that `@import 'tailwindcss'` finds node_modules).
let root: string;
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
};
const output = () => readFileSync(path.join(root, STYLES_OUTPUT), 'utf8');

beforeEach(() => {
  root = path.join(process.cwd(), '.data', `styles-test-${process.pid}-${Math.random().toString(36).slice(2)}`);
  write('app/globals.css', "@import 'tailwindcss' source('.');\n.own { color: red; }\n");
  write('app/page.tsx', 'export default () => <p className="text-lg">Hello</p>;\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the stylesheet built from app/globals.css', () => {
  it('is built when missing, with the classes used under app/, and not again while its inputs are unchanged', async () => {
    expect(await ensureStyles(root)).toBe(true);
    const css = output();
    expect(css.split('\n', 1)[0]).toContain(stylesInputsHash(root));
    expect(css).toContain('.text-lg');
    expect(css).toContain('.own');
    expect(css).not.toContain('.text-xl');
    expect(await ensureStyles(root)).toBe(false);
    expect(output()).toBe(css);
  });

  it('is built again when a file under app/ changes, and only from the files: a class the old stylesheet held is gone', async () => {
    await ensureStyles(root);
    write('app/page.tsx', 'export default () => <p className="text-xl">Hello</p>;\n');
    expect(await ensureStyles(root)).toBe(true);
    expect(output()).toContain('.text-xl');
    expect(output()).not.toContain('.text-lg');
    write('app/globals.css', "@import 'tailwindcss' source('.');\n.other { color: blue; }\n");
    expect(await ensureStyles(root)).toBe(true);
    expect(output()).toContain('.other');
    expect(output()).not.toContain('.own');
  });

  it('is refused when it would read class names outside app/, which the hash does not cover', async () => {
    write('app/globals.css', "@import 'tailwindcss' source('.');\n@source '../lib';\n");
    await expect(buildStyles(root)).rejects.toThrow(/outside app\//);
    await expect(ensureStyles(root)).rejects.toThrow(/outside app\//);
  });

  it('is rebuilt by the watcher after a change, and a failed build keeps the previous one', async () => {
    await ensureStyles(root);
    const reports: string[] = [];
    const watcher = watchStyles(root, (m) => reports.push(m));
    expect(watcher).not.toBeNull();
    expect(watchStyles(root)).toBeNull();
    try {
      write('app/page.tsx', 'export default () => <p className="underline">Hello</p>;\n');
      await vi.waitFor(() => expect(output()).toContain('.underline'), { timeout: 10_000, interval: 50 });
      const good = output();
      write('app/globals.css', "@import 'tailwindcss' source('.');\n@source '../lib';\n");
      await vi.waitFor(() => expect(reports.join('\n')).toMatch(/was not rebuilt: .*outside app\//), { timeout: 10_000, interval: 50 });
      expect(output()).toBe(good);
    } finally {
      watcher!.close();
    }
    expect(watchStyles(root, () => {})?.close()).toBeUndefined();
  });

  it("is this site's: app/ holds the classes the layout uses", async () => {
    const css = await buildStyles(process.cwd());
    expect(css).toContain('.max-w-7xl');
    expect(css).toContain('.prose');
  });
});
