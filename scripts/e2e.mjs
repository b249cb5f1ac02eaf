#!/usr/bin/env node
// `npm run test:e2e`: builds the app into .next-test (a developer's .next stays untouched),
// then runs Playwright, which starts the servers from playwright.config.ts on fresh databases.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { ensureChromium } from './ensure-chromium.mjs';

const browser = ensureChromium();
if (!browser) process.exit(1);

const env = { ...process.env, CHROMIUM_PATH: browser, NEXT_DIST_DIR: '.next-test', NEXT_TELEMETRY_DISABLED: '1' };
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env }).status ?? 1;

console.log('\n$ next build (into .next-test)');
if (run('npx', ['next', 'build']) !== 0) {
  console.error('The production build failed; the end-to-end tests did not run.');
  process.exit(1);
}
for (const dir of ['.data/e2e', '.data/e2e-limited']) rmSync(dir, { recursive: true, force: true });
process.exit(run('npx', ['playwright', 'test', ...process.argv.slice(2)]));
