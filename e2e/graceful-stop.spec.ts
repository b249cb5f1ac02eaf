import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { expect, test } from '@playwright/test';

/**
 * SIGTERM on `npm start` (scripts/serve.mjs), with a server of the test's own on the production
 * build: the request in flight finishes with its answer, new connections are refused, the
 * process exits 0, and the embedded database it closed opens again with everything it
 * acknowledged.
 */

const PORT = 3298;
const DATA = '.data/e2e-stop';

function start(): ChildProcess {
  return spawn(process.execPath, ['scripts/serve.mjs', '-p', String(PORT)], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      // The demo page's key and placements: production seeds them only when asked.
      SEED_DEMO: 'true',
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
    const ok = await fetch(`http://127.0.0.1:${PORT}/api/v1/pricing`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the server did not start');
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

test('SIGTERM lets the request in flight finish, refuses new ones, and closes the database', async () => {
  test.setTimeout(120_000);
  fs.rmSync(DATA, { recursive: true, force: true });
  const server = start();
  try {
    await ready();
    // A request in flight: its body half sent when the signal comes.
    const body = JSON.stringify({ question: 'What is the minimum payout?' });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: PORT,
          path: '/ask',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.kill('SIGTERM');
        setTimeout(async () => {
          // Meanwhile, a new connection is refused.
          const refused = await fetch(`http://127.0.0.1:${PORT}/api/v1/pricing`).then(
            () => false,
            () => true,
          );
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

/** The demo page's publishable key and its placements, as the page hands them to the SDK. */
async function demoKey(): Promise<{ key: string; placements: string[] }> {
  const html = await (await fetch(`http://127.0.0.1:${PORT}/demo`)).text();
  const key = /pk_(?:live|test)_[A-Za-z0-9]{32}/.exec(html)?.[0];
  const placements = [...new Set(html.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])];
  if (!key || placements.length === 0) throw new Error('the demo page shows no key or placements');
  return { key, placements };
}

interface Impression {
  id: string;
  type: 'impression';
  token: string;
  viewability: { visible_share: number; visible_seconds: number };
}

/** An ad for a visitor using `browser` (an impression counts only from the browser its ad was served to). */
async function impression(key: string, placement: string, browser: string): Promise<Impression | null> {
  const res = await fetch(`http://127.0.0.1:${PORT}/functions/v1/ads?placement_id=${placement}`, { headers: { 'x-api-key': key, 'user-agent': browser } });
  if (res.status !== 200) return null;
  const ad = (await res.json()) as { decision_id: string; token: string };
  return { id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token, viewability: { visible_share: 1, visible_seconds: 2.5 } };
}

/** Sends events; answers each one's status, or null when the server did not answer (stopped). */
async function send(key: string, events: Impression[], browser: string): Promise<string[] | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${PORT}/functions/v1/events`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'user-agent': browser },
      body: JSON.stringify({ events }),
    });
    if (res.status !== 200) return null;
    return ((await res.json()) as { results: { status: string }[] }).results.map((r) => r.status);
  } catch {
    return null;
  }
}

test('a restart loses nothing the server acknowledged, including what it answered while stopping', async () => {
  test.setTimeout(180_000);
  fs.rmSync(DATA, { recursive: true, force: true });
  const server = start();
  try {
    await ready();
    const { key, placements } = await demoKey();
    // Ads served to four visitors, their impressions waiting to be sent: a batch of 10 each.
    const browsers = [0, 1, 2, 3].map((b) => `Mozilla/5.0 (visitor ${b})`);
    const batches: Impression[][] = [];
    for (const browser of browsers) {
      const batch: Impression[] = [];
      for (let i = 0; i < 10; i++) {
        const made = await impression(key, placements[i % placements.length]!, browser);
        if (made) batch.push(made);
      }
      expect(batch.length).toBe(10);
      batches.push(batch);
    }
    // Viewed: no impression counts sooner than its seconds in view after its ad.
    await new Promise((r) => setTimeout(r, 3000));
    // The first batch acknowledged before the signal; the others sent as it comes.
    expect(await send(key, batches[0]!, browsers[0]!)).toEqual(Array(10).fill('recorded'));
    const racing = batches.slice(1).map((batch, i) => send(key, batch, browsers[i + 1]!));
    server.kill('SIGTERM');
    const raced = await Promise.all(racing);
    expect(await exitOf(server)).toBe(0);

    const again = start();
    try {
      await ready();
      // Every batch the stopping server acknowledged is there: sent again, each event is a duplicate.
      const acknowledged = [0, ...[1, 2, 3].filter((b) => raced[b - 1] !== null)];
      for (const b of acknowledged) expect(await send(key, batches[b]!, browsers[b]!)).toEqual(Array(10).fill('duplicate'));
      // What it never answered can still be sent, and counts once whether or not it had arrived.
      for (const b of [1, 2, 3].filter((b) => raced[b - 1] === null)) {
        for (const status of (await send(key, batches[b]!, browsers[b]!)) ?? ['no answer']) expect(['recorded', 'duplicate']).toContain(status);
      }
    } finally {
      again.kill('SIGTERM');
      await exitOf(again);
    }
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
  }
});
