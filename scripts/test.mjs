#!/usr/bin/env node
// `npm test`: the whole suite. Unit and integration tests (vitest; PGlite always, and the real
// PostgreSQL of TEST_DATABASE_URL when it is set), then end to end in Chromium (Playwright).
// Ends with one line "N passed, N failed" summing both runners.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { ensureChromium } from './ensure-chromium.mjs';

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

function run(command, args) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', env }).status ?? 1;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

// Check the browser first: a missing one should fail in seconds, not after the unit tests.
const browser = ensureChromium();
if (!browser) process.exit(1);
env.CHROMIUM_PATH = browser;

// The deletion-webhook tests deliver to an https receiver whose certificate the openssl command makes.
if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0) {
  console.error('The openssl command is missing: the deletion-webhook tests need it. Install it (Debian: apt-get install openssl) and run npm test again.');
  process.exit(1);
}

rmSync('test-results', { recursive: true, force: true });
mkdirSync('test-results', { recursive: true });

console.log(
  process.env.TEST_DATABASE_URL
    ? `Integration tests run on PGlite and on PostgreSQL (${new URL(process.env.TEST_DATABASE_URL).host}).`
    : 'Integration tests run on PGlite (set TEST_DATABASE_URL to also run them on a PostgreSQL).',
);

const unit = run('npx', ['vitest', 'run', '--reporter=verbose', '--reporter=json', '--outputFile.json=test-results/vitest.json']);
const e2e = run('node', ['scripts/e2e.mjs']);

const v = readJson('test-results/vitest.json');
const p = readJson('test-results/playwright.json');
const passed = (v?.numPassedTests ?? 0) + (p?.stats?.expected ?? 0);
const failed = (v?.numFailedTests ?? 0) + (p?.stats?.unexpected ?? 0) + (p?.stats?.flaky ?? 0);
const skipped = (v?.numPendingTests ?? 0) + (v?.numTodoTests ?? 0) + (p?.stats?.skipped ?? 0);
const broken = (unit !== 0 && !v) || (e2e !== 0 && !p);

console.log('');
console.log(
  `unit+integration: ${v ? `${v.numPassedTests} passed, ${v.numFailedTests} failed` : 'no report'}; end-to-end: ${p ? `${p.stats.expected} passed, ${p.stats.unexpected} failed` : 'no report'}`,
);
console.log(`${passed} passed, ${failed + (broken ? 1 : 0)} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(unit === 0 && e2e === 0 ? 0 : 1);
