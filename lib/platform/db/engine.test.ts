import { describe, expect, it } from 'vitest';
import { openPglite } from './engine';

describe('openPglite', () => {
  it('starts PostgreSQL with 32 MB of shared buffers, not the default 128 MB', async () => {
    const lite = await openPglite();
    try {
      expect(await lite.query<{ shared_buffers: string }>("select current_setting('shared_buffers') as shared_buffers")).toEqual([{ shared_buffers: '32MB' }]);
      // PGlite's own start parameters are kept: its single-user defaults stand.
      expect(await lite.query<{ max_worker_processes: string }>("select current_setting('max_worker_processes') as max_worker_processes")).toEqual([
        { max_worker_processes: '0' },
      ]);
    } finally {
      await lite.close();
    }
  });
});
