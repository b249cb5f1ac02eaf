// Makes sure a Chromium is there for the end-to-end tests: installs Debian's `chromium` when
// none is found and we may (root with apt-get), or says exactly what is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromiumPath } from './chromium.mjs';

export function ensureChromium() {
  let found = chromiumPath();
  if (found) return found;
  if (process.env.CHROMIUM_PATH) {
    console.error(`CHROMIUM_PATH is set to ${process.env.CHROMIUM_PATH}, which does not exist.`);
    return null;
  }
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log("No Chromium found: installing Debian's chromium package (apt-get install chromium).");
    const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status;
    if (apt(['update']) === 0 && apt(['install', '-y', '--no-install-recommends', 'chromium']) === 0) found = chromiumPath();
  }
  if (!found) {
    console.error(
      [
        'The end-to-end tests need Chromium, and none was found.',
        '  Debian/Ubuntu: sudo apt-get install chromium',
        '  Elsewhere: install Chromium or Chrome and set CHROMIUM_PATH to its binary.',
        '(Playwright cannot download its own browsers on our machines, so we use the system one.)',
      ].join('\n'),
    );
  }
  return found;
}
