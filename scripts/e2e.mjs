#!/usr/bin/env node
// `npm run test:e2e`: builds the app into .next-test (a developer's .next stays untouched),
// then runs Playwright, which starts the servers from playwright.config.ts on fresh databases,
// then `npm run money:check` on the main server's database: the run fails if the money does not add up.
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
const tests = run('npx', ['playwright', 'test', ...process.argv.slice(2)]);
// The money's invariants on the database the run wrote (payouts requested and paid, ads billed):
// `npm run money:check` after the servers stopped (one process may open an embedded database),
// after one more roll-up: the servers stopped within their timer's 10 s of the last impression billed.
console.log("\n$ npm run money:check (on the end-to-end run's database, .data/e2e)");
let money = 1;
// Playwright may return while a server it stopped is still closing the database: wait for it (60 s at most).
for (let attempt = 0; attempt < 60; attempt++) {
  const check = spawnSync('npx', ['tsx', 'scripts/money-check.ts', '--roll-up'], {
    env: { ...env, PGLITE_DATA_DIR: '.data/e2e', DATABASE_URL: '' },
    encoding: 'utf8',
  });
  const output = `${check.stdout ?? ''}${check.stderr ?? ''}`;
  if (/is in use by process/.test(output) && attempt < 59) {
    spawnSync('sleep', ['1']);
    continue;
  }
  process.stdout.write(output);
  money = check.status ?? 1;
  break;
}
if (money !== 0) console.error("The money check failed on the end-to-end run's database.");
process.exit(tests !== 0 ? tests : (money ?? 1));
