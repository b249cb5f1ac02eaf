import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DARK, LIGHT } from './tokens';

const css = readFileSync(path.resolve(__dirname, '../../../app/globals.css'), 'utf8');

/** The custom properties of the first block after `marker` in the stylesheet. */
function block(marker: string): Map<string, string> {
  const start = css.indexOf(marker);
  const open = css.indexOf('{', css.indexOf(':root', start));
  const body = css.slice(open + 1, css.indexOf('}', open));
  return new Map([...body.matchAll(/--([a-z-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

describe('the colours of pages rendered outside React', () => {
  it('are the stylesheet’s, light and dark', () => {
    const light = block('\n:root {');
    const dark = block('@media (prefers-color-scheme: dark)');
    for (const [k, v] of Object.entries(LIGHT)) expect(light.get(k), k).toBe(v);
    for (const [k, v] of Object.entries(DARK)) expect(dark.get(k), k).toBe(v);
  });
});
