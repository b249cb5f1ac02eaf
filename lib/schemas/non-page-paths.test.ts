import { describe, expect, it } from 'vitest';
import { NON_PAGE_PREFIXES } from './non-page-paths';
import { nonPagePaths } from './registry';

/** `paths` without those below another of them (`/api/v1/me` is below `/api/v1`), sorted. */
function fewestPrefixes(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && p.startsWith(`${q}/`))).sort();
}

describe('the non-page paths next.config.ts reads', () => {
  it("are the route registry's, as the fewest prefixes", () => {
    expect([...NON_PAGE_PREFIXES]).toEqual(fewestPrefixes(nonPagePaths()));
  });

  it('leave out exactly the paths below another', () => {
    expect(fewestPrefixes(['/api/v1/me', '/api/v1', '/api/v10', '/mcp', '/mcp'])).toEqual(['/api/v1', '/api/v10', '/mcp']);
  });
});
