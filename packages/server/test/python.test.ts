import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The Python client (packages/server/python/monetize_ads.py) runs its own tests, against a local
 * stand-in of the service, with the standard library's unittest: here, so that `npm test` runs
 * them. python3 is on every machine that runs CI; where it is missing this fails and says so.
 */

const folder = path.resolve(__dirname, '../python');

describe('the Python client', () => {
  it('passes its unittest suite (get_ad never raises: down, slow, refused, no fill; the markdown matches the TypeScript package)', () => {
    const run = spawnSync('python3', ['-B', '-m', 'unittest', '-v'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
    if (run.error) throw new Error(`python3 could not be run (${run.error.message}): install Python 3.8 or later (apt-get install python3)`);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    // Every test ran: none skipped, none missing.
    expect(run.stderr).toMatch(/Ran 9 tests/);
    expect(run.stderr).toMatch(/\nOK\n?$/);
  });
});
