import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { FAILURE_TTL_S, fetchClientMetadata, FETCH_TIMEOUT_MS, metadataDocuments, type MetadataDocuments } from '@/lib/identity/oauth/client-metadata';
import { demoUsers, openPgliteCopy } from '../helpers/db';
import { approve, codeGrant, exchange, authorizeParams, openAuthorize, sessionCookie } from '../helpers/oauth';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * Client ID Metadata Documents against a real HTTP server on the loopback interface, which only
 * the test-only setting lets the fetcher reach.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end();
let hits: string[] = [];
let server: Server;
let origin = '';
const saved = { ...process.env };

function document(path: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    client_id: `${origin}${path}`,
    client_name: 'Metadata Tool',
    redirect_uris: ['http://127.0.0.1:8765/callback'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

function serve(body: string, headers: Record<string, string> = {}, status = 200): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

describe('client ID metadata documents', () => {
  let db: Engine;
  let documents: MetadataDocuments;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      handler(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    db = await openPgliteCopy();
    setTestServices(makeServices({ database: db }));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    setTestServices(undefined);
    await db.close();
  });
  beforeEach(() => {
    process.env.OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS = '1';
    resetEnv();
    // Fresh services, and so fresh caches of documents, for each test.
    setTestServices(makeServices({ database: db }));
    documents = metadataDocuments();
    hits = [];
  });
  afterEach(() => {
    process.env = { ...saved };
    resetEnv();
  });

  describe('without the test-only setting', () => {
    beforeEach(() => {
      delete process.env.OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS;
      resetEnv();
    });

    it('refuses a plain http client_id', async () => {
      expect(await fetchClientMetadata(`${origin}/client.json`, documents)).toEqual({ ok: false, reason: 'a client_id URL must use https' });
      expect(hits).toEqual([]);
    });

    it.each([
      ['a loopback literal', 'https://127.0.0.1:1/client.json'],
      ['a link-local literal (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
      ['a private literal', 'https://10.0.0.8/client.json'],
      ['an IPv6 loopback literal', 'https://[::1]:1/client.json'],
      // Written in their normal form, as the URL rules require (::127.0.0.1 is ::7f00:1).
      ['an IPv4-compatible loopback literal', 'https://[::7f00:1]:1/client.json'],
      ['an IPv4-mapped loopback literal', 'https://[::ffff:7f00:1]:1/client.json'],
      ['a NAT64 literal', 'https://[64:ff9b::a00:1]:1/client.json'],
      ['a local-use NAT64 literal', 'https://[64:ff9b:1::a00:1]:1/client.json'],
      ['a name that resolves to loopback', 'https://localhost:1/client.json'],
    ])('refuses %s without connecting', async (_what, url) => {
      const result = await fetchClientMetadata(url, documents);
      expect(result.ok).toBe(false);
      expect(result.ok === false && result.reason).toMatch(/private address|EPRIVATE/);
    });
  });

  it('lets a client identified by its document through authorization and the token exchange', async () => {
    handler = serve(document('/client.json'), { 'cache-control': 'max-age=60' });
    const clientId = `${origin}/client.json`;
    const { demo } = await demoUsers(db);
    const page = await openAuthorize(authorizeParams(clientId).toString(), await sessionCookie(demo));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Metadata Tool');
    expect(html).toContain('describes itself at');
    const code = (await approve(clientId, demo)).searchParams.get('code')!;
    const { res, body } = await exchange(codeGrant(clientId, code));
    expect(res.status).toBe(200);
    expect(body.token_type).toBe('Bearer');
  });

  it('refuses a document whose client_name holds a bidirectional control, by the rule registration applies, and keeps the refusal only briefly', async () => {
    handler = serve(document('/bidi.json', { client_name: 'Monetize Official \u202eelgooG' }), { 'cache-control': 'max-age=600' });
    expect(await fetchClientMetadata(`${origin}/bidi.json`, documents)).toEqual({
      ok: false,
      reason: expect.stringMatching(/client_name .*U\+202E/),
    });
    handler = serve(document('/bidi.json'), { 'cache-control': 'max-age=600' });
    // Refused documents are remembered for FAILURE_TTL_S, no longer.
    expect(await fetchClientMetadata(`${origin}/bidi.json`, documents, Date.now() + FAILURE_TTL_S * 1000 + 1)).toMatchObject({
      ok: true,
      client: { name: 'Metadata Tool' },
    });
  });

  it('keeps a document as long as its Cache-Control allows', async () => {
    handler = serve(document('/cached.json'), { 'cache-control': 'public, max-age=60' });
    expect((await fetchClientMetadata(`${origin}/cached.json`, documents)).ok).toBe(true);
    expect((await fetchClientMetadata(`${origin}/cached.json`, documents)).ok).toBe(true);
    expect(hits).toEqual(['/cached.json']);
  });

  it('fetches a no-store document every time', async () => {
    handler = serve(document('/fresh.json'), { 'cache-control': 'no-store' });
    await fetchClientMetadata(`${origin}/fresh.json`, documents);
    await fetchClientMetadata(`${origin}/fresh.json`, documents);
    expect(hits).toEqual(['/fresh.json', '/fresh.json']);
  });

  it('keeps a failure for FAILURE_TTL_S only, whatever the headers say', async () => {
    const now = Date.now();
    handler = serve('{}', { 'cache-control': 'max-age=600' }, 500);
    expect((await fetchClientMetadata(`${origin}/flaky.json`, documents, now)).ok).toBe(false);
    handler = serve(document('/flaky.json'), { 'cache-control': 'max-age=600' });
    // A flood of the same bad client_id costs one fetch.
    expect(await fetchClientMetadata(`${origin}/flaky.json`, documents, now + 1000)).toEqual({
      ok: false,
      reason: 'the client_id URL answered 500 (redirects are not followed)',
    });
    expect(hits).toEqual(['/flaky.json']);
    expect((await fetchClientMetadata(`${origin}/flaky.json`, documents, now + FAILURE_TTL_S * 1000 + 1)).ok).toBe(true);
    expect(hits).toEqual(['/flaky.json', '/flaky.json']);
  });

  it('does not follow redirects', async () => {
    handler = (req, res) => {
      if (req.url === '/moved.json') {
        res.writeHead(302, { location: '/target.json' });
        res.end();
      } else serve(document('/moved.json'))(req, res);
    };
    const result = await fetchClientMetadata(`${origin}/moved.json`, documents);
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('302') });
    expect(hits).toEqual(['/moved.json']);
  });

  it('refuses a document over 5 KB', async () => {
    handler = serve(document('/big.json', { padding: 'x'.repeat(6000) }));
    expect(await fetchClientMetadata(`${origin}/big.json`, documents)).toEqual({
      ok: false,
      reason: expect.stringContaining('larger than 5120 bytes'),
    });
  });

  it('gives up on a server that does not answer in time', async () => {
    handler = () => {};
    const started = Date.now();
    expect(await fetchClientMetadata(`${origin}/slow.json`, documents)).toEqual({ ok: false, reason: expect.stringContaining('in time') });
    expect(Date.now() - started).toBeLessThan(FETCH_TIMEOUT_MS + 2000);
  });

  it.each([
    ['a client_id that is not its URL', (path: string) => document(path, { client_id: 'https://other.example/client.json' })],
    ['no client_name', (path: string) => document(path, { client_name: undefined })],
    ['a secret-based auth method', (path: string) => document(path, { token_endpoint_auth_method: 'client_secret_basic' })],
    ['a javascript: redirect URI', (path: string) => document(path, { redirect_uris: ['javascript:alert(1)'] })],
  ])('refuses a document with %s, on our own page', async (_what, make) => {
    const path = `/bad-${hits.length}-${Math.random().toString(36).slice(2)}.json`;
    handler = serve(make(path));
    const { demo } = await demoUsers(db);
    const res = await openAuthorize(authorizeParams(`${origin}${path}`).toString(), await sessionCookie(demo));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Unknown application');
  });
});
