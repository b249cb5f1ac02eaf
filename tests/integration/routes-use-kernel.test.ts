import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HTTP_METHODS, isKernelHandler } from '@/lib/http/kernel';

/** Issue 2, "It must show" 3: every route file under app/ goes through the route kernel. */

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return /^route\.(ts|tsx|js|mjs)$/.test(name) ? [full] : [];
  });
}

const appDir = path.resolve(__dirname, '../../app');
const files = routeFiles(appDir);

describe('every route handler goes through the kernel', () => {
  it('finds the route files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(path.relative(appDir, file), async () => {
      const mod = (await import(file)) as Record<string, unknown>;
      for (const m of HTTP_METHODS) {
        // Every method is exported, so an undeclared one gets the kernel's 405 and not Next's.
        expect(mod[m], `${m} is not exported`).toBeTypeOf('function');
        expect(isKernelHandler(mod[m]), `${m} does not come from defineRoute`).toBe(true);
      }
      const strays = Object.entries(mod).filter(([k, v]) => typeof v === 'function' && !isKernelHandler(v) && k !== 'generateStaticParams');
      expect(strays.map(([k]) => k)).toEqual([]);
    });
  }
});
