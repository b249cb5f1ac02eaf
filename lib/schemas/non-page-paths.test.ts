import { describe, expect, it } from 'vitest';
import { fewestPrefixes, NON_PAGE_PREFIXES } from './non-page-paths';
import { nonPagePaths } from './registry';

describe('the non-page paths next.config.ts reads', () => {
  it("are the route registry's, as the fewest prefixes", () => {
    expect([...NON_PAGE_PREFIXES]).toEqual(fewestPrefixes(nonPagePaths()));
  });

  it('leave out exactly the paths below another', () => {
    expect(fewestPrefixes(['/api/v1/me', '/api/v1', '/api/v10', '/mcp', '/mcp'])).toEqual(['/api/v1', '/api/v10', '/mcp']);
  });
});
