import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages } from '@/lib/docs/content/pages';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { pageFor } from '@/lib/agents/mcp/docs-tools';
import { PGLITE, suiteDatabase } from '../helpers/db';
import { inProcessFetch } from '../helpers/in-process-fetch';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

const BASE = 'http://localhost:3000';
const docsMcp = handlersOf('/docs/mcp');
const twin = handlersOf('/markdown/[[...slug]]');
const pricing = handlersOf('/api/v1/pricing');
const search = handlersOf('/api/v1/search');

async function connect(): Promise<Client> {
  const client = new Client({ name: 'docs-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/docs/mcp`), { fetch: inProcessFetch(['/docs/mcp']) }));
  return client;
}

async function twinOf(path: string): Promise<string> {
  const segments = path === '/' ? [] : path.slice(1).split('/');
  const res = await twin.GET(new Request(`${BASE}${path === '/' ? '/index' : path}.md`), { params: Promise.resolve({ slug: segments }) });
  expect(res.status).toBe(200);
  return res.text();
}

async function restJson(handler: typeof pricing.GET, pathAndQuery: string) {
  const res = await handler(new Request(`${BASE}${pathAndQuery}`), { params: Promise.resolve({}) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('the docs MCP server at /docs/mcp', () => {
  const suite = suiteDatabase(PGLITE, { unlimited: true });
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists its three tools without a token, each with an input and an output schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_page', 'get_pricing', 'search_docs']);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it('search_docs finds what GET /api/v1/search finds, in the same order', async () => {
    const result = await client.callTool({ name: 'search_docs', arguments: { query: 'minimum payout', limit: 3 } });
    const rest = await restJson(search.GET, '/api/v1/search?q=minimum%20payout&limit=3');
    expect(result.structuredContent).toEqual({ query: 'minimum payout', count: rest.count, results: rest.results });
    const urls = (result.structuredContent as { results: { url: string }[] }).results.map((r) => r.url);
    expect(urls).toContain(`${BASE}/pricing`);
  });

  it('search_docs refuses an empty or over-long query as a tool error', async () => {
    for (const query of ['', '   ', 'x'.repeat(201)]) {
      const result = await client.callTool({ name: 'search_docs', arguments: { query } });
      expect(result.isError).toBe(true);
    }
  });

  it('get_page returns exactly the markdown twin of every public page', async () => {
    for (const page of allPages()) {
      const result = await client.callTool({ name: 'get_page', arguments: { path: page.path } });
      const markdown = await twinOf(page.path);
      expect((result.content as { text: string }[])[0]!.text).toBe(markdown);
      expect(result.structuredContent).toMatchObject({ path: page.path, url: `${BASE}${page.path}`, title: page.title, markdown });
    }
  });

  it('get_page accepts the twin path and the page URL too', async () => {
    const payouts = await twinOf('/docs/payouts');
    for (const path of ['/docs/payouts.md', `${BASE}/docs/payouts`, `${BASE}/docs/payouts.md#minimum`, 'docs/payouts']) {
      const result = await client.callTool({ name: 'get_page', arguments: { path } });
      expect((result.content as { text: string }[])[0]!.text).toBe(payouts);
    }
    expect(pageFor('/index.md')?.path).toBe('/');
  });

  it('get_page answers an unknown page, or a page of another site, as a tool error', async () => {
    for (const path of ['/docs/nope', 'https://elsewhere.example/docs/payouts', '/api/v1/me', 'http://[bad']) {
      const result = await client.callTool({ name: 'get_page', arguments: { path } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
    }
  });

  it('get_pricing returns what GET /api/v1/pricing returns, for each audience', async () => {
    for (const audience of ['all', 'publisher', 'advertiser', 'data_buyer']) {
      const result = await client.callTool({ name: 'get_pricing', arguments: { audience } });
      expect(result.structuredContent).toEqual(await restJson(pricing.GET, `/api/v1/pricing?audience=${audience}`));
    }
    const plain = await client.callTool({ name: 'get_pricing' });
    expect(plain.structuredContent).toMatchObject({ currency: 'USD', min_payout_usd: 50 });
  });

  it('is rate limited like the other surfaces, and stateless (GET and DELETE answer 405)', async () => {
    setTestServices(makeServices({ database: suite.db, rateLimiter: new MemoryRateLimiter({ max: 2, windowSeconds: 60 }) }));
    try {
      const send = () =>
        docsMcp.POST(
          new Request(`${BASE}/docs/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-06-18',
              'x-forwarded-for': '192.0.2.91',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          }),
          { params: Promise.resolve({}) },
        );
      expect((await send()).status).toBe(200);
      const second = await send();
      expect(second.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
      const third = await send();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      setTestServices(suite.services);
    }
    for (const m of ['GET', 'DELETE'] as const) {
      const res = await docsMcp[m](new Request(`${BASE}/docs/mcp`, { method: m }), { params: Promise.resolve({}) });
      expect(res.status).toBe(405);
    }
  });
});
