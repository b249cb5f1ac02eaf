import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { expect, test } from '@playwright/test';

/**
 * SIGTERM on `npm start` (scripts/serve.mjs), with a server of the test's own on the production
 * build: the request in flight finishes with its answer, new connections are refused, the
 * process exits 0, and the embedded database it closed opens again.
 */

const PORT = 3298;
const DATA = '.data/e2e-stop';

function start(): ChildProcess {
  return spawn(process.execPath, ['scripts/serve.mjs', '-p', String(PORT)], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_DIST_DIR: '.next-test',
      PGLITE_DATA_DIR: DATA,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
      OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function ready(): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const ok = await fetch(`http://127.0.0.1:${PORT}/api/v1/pricing`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the server did not start');
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

test('SIGTERM lets the request in flight finish, refuses new ones, and closes the database', async () => {
  test.setTimeout(120_000);
  fs.rmSync(DATA, { recursive: true, force: true });
  const server = start();
  try {
    await ready();
    // A request in flight: its body half sent when the signal comes.
    const body = JSON.stringify({ question: 'What is the minimum payout?' });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: PORT, path: '/ask', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.kill('SIGTERM');
        setTimeout(async () => {
          // Meanwhile, a new connection is refused.
          const refused = await fetch(`http://127.0.0.1:${PORT}/api/v1/pricing`).then(() => false, () => true);
          expect(refused).toBe(true);
          req.end(body.slice(10));
        }, 500);
      }, 300);
    });
    const { status, text } = await answered;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ found: true });
    expect(await exitOf(server)).toBe(0);
    expect(fs.existsSync(`${DATA}.lock`)).toBe(false);

    // The database it closed opens again, whole.
    const again = start();
    try {
      await ready();
      expect((await fetch(`http://127.0.0.1:${PORT}/api/v1/pricing`)).status).toBe(200);
    } finally {
      again.kill('SIGTERM');
      await exitOf(again);
    }
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
  }
});
