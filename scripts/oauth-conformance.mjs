#!/usr/bin/env node
// `npm run test:conformance`: runs @modelcontextprotocol/conformance's authorization-server
// scenarios against the production build, with Chromium playing the publisher who signs in and
// approves, and its server scenario `dns-rebinding-protection` against /docs/mcp (a server
// scenario needs an MCP server it can initialize without a token; /mcp answers 401 first).
// The tool needs Node 22; it comes from the npm registry as the package `node`, into
// .cache/conformance (git-ignored), so the project itself stays on Node 20.
//
// The tool prints the authorization URL and waits for its callback; this script opens that URL in
// Chromium, signs in as the demo publisher and presses Approve. Results: a summary on stdout, the
// tool's checks.json files under test-results/conformance/, exit code 0 only when no check failed.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { chromium } from '@playwright/test';
import { ensureChromium } from './ensure-chromium.mjs';

const CONFORMANCE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const NODE = 'node@22';
const root = path.resolve(import.meta.dirname, '..');
const cache = path.join(root, '.cache/conformance');
const results = path.join(root, 'test-results/conformance');
const distDir = '.next-test';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function install() {
  const node22 = path.join(cache, 'node_modules/node/bin/node');
  const cli = path.join(cache, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(node22) || !existsSync(cli)) {
    console.log(`$ npm install ${NODE} ${CONFORMANCE} (into .cache/conformance)`);
    mkdirSync(cache, { recursive: true });
    const r = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', cache, NODE, CONFORMANCE], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('could not install the conformance tool and Node 22 from the npm registry');
  }
  return { node22, cli };
}

function build() {
  if (existsSync(path.join(root, distDir, 'BUILD_ID')) && !process.argv.includes('--build')) return;
  console.log(`$ next build (into ${distDir})`);
  const r = spawnSync('npx', ['next', 'build'], { stdio: 'inherit', cwd: root, env: { ...process.env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: '1' } });
  if (r.status !== 0) throw new Error('the production build failed');
}

async function startApp(port) {
  const base = `http://localhost:${port}`;
  const dataDir = '.data/conformance';
  rmSync(path.join(root, dataDir), { recursive: true, force: true });
  const child = spawn('node', ['scripts/serve.mjs'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      // Chromium signs in as the demo publisher: production seeds the demo accounts only when asked.
      SEED_DEMO: 'true',
      NEXT_DIST_DIR: distDir,
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      PGLITE_DATA_DIR: dataDir,
      RATE_LIMIT_MAX: '100000',
      LOG_LEVEL: 'warn',
      OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    },
  });
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/.well-known/oauth-authorization-server`)).ok) return { base, stop: () => child.kill('SIGTERM') };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error('the app exited before it was ready');
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill('SIGTERM');
  throw new Error('the app did not become ready within 2 minutes');
}

/** A public client whose redirect URI is the conformance tool's callback. */
async function registerClient(base, callbackPort) {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
      token_endpoint_auth_method: 'none',
    }),
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return (await res.json()).client_id;
}

/** Signs in as the demo publisher and approves, as a person would. */
async function approveInBrowser(browser, url) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.getByLabel('Email').fill('demo@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/, { timeout: 15_000 });
  } finally {
    await page.close();
  }
}

async function runTool({ node22, cli }, args, browser) {
  return new Promise((resolve) => {
    const child = spawn(node22, [cli, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = readline.createInterface({ input: child.stdout });
    let next = false;
    lines.on('line', (line) => {
      console.log(`  ${line}`);
      if (line.startsWith('Access the following URL')) next = true;
      else if (next && /^https?:\/\//.test(line)) {
        next = false;
        approveInBrowser(browser, line).catch((err) => {
          console.error(`Driving the consent page failed: ${err.message}`);
          child.kill('SIGTERM');
        });
      }
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

function summarize(dir) {
  const rows = [];
  for (const entry of readdirSync(dir)) {
    const file = path.join(dir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    for (const c of JSON.parse(readFileSync(file, 'utf8'))) rows.push(`  ${c.status.padEnd(8)} ${c.id}${c.errorMessage ? ` (${c.errorMessage})` : ''}`);
  }
  return rows.sort();
}

async function main() {
  const tools = install();
  build();
  const browserPath = ensureChromium();
  if (!browserPath) process.exit(1);
  const app = await startApp(await freePort());
  const browser = await chromium.launch({
    executablePath: browserPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
  rmSync(results, { recursive: true, force: true });
  let failed = 0;
  try {
    // Once as a plain OAuth client, once as an MCP client naming the MCP resource (RFC 8707).
    for (const [label, extra] of [
      ['without resource', []],
      ['with resource = the MCP endpoint', ['--resource', `${app.base}/mcp`]],
    ]) {
      const port = await freePort();
      const clientId = await registerClient(app.base, port);
      const out = path.join(results, label.replace(/\W+/g, '-'));
      console.log(`\n== conformance authorization (${label})`);
      const code = await runTool(tools, ['authorization', '--url', app.base, '--client-id', clientId, '-p', String(port), '-o', out, ...extra], browser);
      console.log(`\nChecks (${label}):\n${summarize(out).join('\n')}`);
      if (code !== 0) failed++;
    }
    // The MCP transport's DNS-rebinding protection: Host and Origin evil.example.com must be
    // refused, the server's own localhost address served.
    const out = path.join(results, 'dns-rebinding-protection');
    console.log('\n== conformance server dns-rebinding-protection (/docs/mcp)');
    const code = await runTool(tools, ['server', '--url', `${app.base}/docs/mcp`, '--scenario', 'dns-rebinding-protection', '-o', out], browser);
    const checks = summarize(out);
    console.log(`\nChecks (dns-rebinding-protection):\n${checks.join('\n')}`);
    if (code !== 0 || checks.length === 0 || checks.some((c) => c.trimStart().startsWith('FAILURE'))) failed++;
  } finally {
    await browser.close();
    app.stop();
  }
  console.log(failed === 0 ? '\nConformance: every check passed.' : `\nConformance: ${failed} run(s) had failing checks.`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
