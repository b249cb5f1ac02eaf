import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SANDBOX_LICENSES, SANDBOX_PROFILE } from '@/lib/account/sandbox';
import { createPublisher } from '@/lib/identity/auth/users';
import { ACCOUNT_TOOLS } from '@/lib/agents/mcp/account-tools';
import type { Scope } from '@/lib/identity/oauth/scopes';
import { ACCOUNT_ROUTES, get } from '../helpers/account';
import { testEngines, suiteDatabase } from '../helpers/db';
import { inProcessFetch } from '../helpers/in-process-fetch';
import { handlersOf } from '../helpers/routes';
import { accessToken, expiredToken, foreignSignedToken, otherIssuerToken } from '../helpers/tokens';
import { rawAsService } from '../helpers/roles';

const BASE = 'http://localhost:3000';
const METADATA = `${BASE}/.well-known/oauth-protected-resource/mcp`;
const mcp = handlersOf('/mcp');
const fetchRoutes = inProcessFetch(['/mcp']);

async function connect(token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: fetchRoutes,
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST, as a client without the SDK would send it. */
async function post(body: unknown, token?: string, extra: Record<string, string> = {}) {
  const res = await mcp.POST(
    new Request(`${BASE}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'x-forwarded-for': '192.0.2.90',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...extra,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({}) },
  );
  const text = await res.text();
  return { res, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const call = (name: string, args: Record<string, unknown> = {}, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The REST answer of the tool's twin, for the same caller and filter. */
async function restTwin(tool: keyof typeof ACCOUNT_TOOLS, token: string, query = '') {
  const route = ACCOUNT_ROUTES.find((r) => `GET ${r.path}` === ACCOUNT_TOOLS[tool]!.rest)!;
  const { res, body } = await get(route.GET, `${route.path}${query}`, token);
  expect(res.status).toBe(200);
  return body;
}

for (const engine of testEngines()) {
  describe(`MCP account tools at /mcp on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    it('answers a request without a token with 401 and the MCP resource metadata (discovery starts here)', async () => {
      const { res, body } = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${METADATA}"`);
      expect(body).toEqual({ error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
      expect(res.headers.get('ratelimit-policy')).toMatch(/q=\d+/);
    });

    it.each([
      ['a malformed header', async () => 'Bearer not a token'],
      ['a token signed by another key', async (u: string) => `Bearer ${await foreignSignedToken(u)}`],
      ['an expired token', async (u: string) => `Bearer ${await expiredToken(u)}`],
      ['a token of another issuer', async (u: string) => `Bearer ${await otherIssuerToken(u)}`],
      ['a token issued only for the REST resource', async (u: string) => `Bearer ${await accessToken(u, { resources: ['api'] })}`],
    ])('refuses %s with 401 invalid_token', async (_, make) => {
      const { res, body } = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, undefined, { authorization: await make(suite.users.demo) });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate')!;
      expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+"$/);
      expect(challenge).toContain(`resource_metadata="${METADATA}"`);
      expect(body).toEqual({ error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
    });

    it('lists the seven tools, each with an input and an output schema and marked read-only', async () => {
      const client = await connect(await accessToken(suite.users.demo, { resources: ['mcp'] }));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'get_my_daily_earnings',
        'get_my_earnings',
        'list_my_api_keys',
        'list_my_apps',
        'list_my_campaigns',
        'list_my_licenses',
        'whoami',
      ]);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations?.readOnlyHint).toBe(true);
        expect(tool.description).toContain(ACCOUNT_TOOLS[tool.name]!.scope);
      }
      const earnings = tools.find((t) => t.name === 'get_my_earnings')!;
      expect(earnings.inputSchema.properties?.payout_limit).toMatchObject({ type: 'integer', minimum: 0, maximum: 50, default: 10 });
      const apps = tools.find((t) => t.name === 'list_my_apps')!;
      expect(apps.inputSchema.properties?.placement_status).toMatchObject({ enum: ['all', 'active', 'paused'], default: 'all' });
      const campaigns = tools.find((t) => t.name === 'list_my_campaigns')!;
      expect(campaigns.inputSchema.properties?.status).toMatchObject({ enum: expect.arrayContaining(['all', 'active', 'paused', 'rejected']), default: 'all' });
      expect(campaigns.inputSchema.properties?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
      expect(campaigns.inputSchema.properties?.cursor).toMatchObject({ type: 'string' });
      expect(campaigns.description).toContain('campaigns:read');
      const licenses = tools.find((t) => t.name === 'list_my_licenses')!;
      expect(licenses.inputSchema.properties?.status).toMatchObject({
        enum: ['all', 'pending_review', 'active', 'rejected', 'expired'],
        default: 'all',
      });
      expect(licenses.inputSchema.properties?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
      expect(licenses.inputSchema.properties?.cursor).toMatchObject({ type: 'string' });
      expect(licenses.outputSchema?.properties).toHaveProperty('available_micro');
      expect(licenses.description).toContain('licenses:read');
      await client.close();
    });

    it('answers every tool with the same body as its REST twin, read as the user', async () => {
      const token = await accessToken(suite.users.demo, { resources: ['mcp', 'api'] });
      const client = await connect(token);
      const cases: [keyof typeof ACCOUNT_TOOLS, Record<string, unknown>, string][] = [
        ['whoami', {}, ''],
        ['list_my_apps', {}, ''],
        ['list_my_apps', { placement_status: 'paused' }, '?placement_status=paused'],
        ['get_my_earnings', {}, ''],
        ['get_my_earnings', { payout_limit: 2 }, '?payout_limit=2'],
        ['get_my_daily_earnings', { days: '7' }, '?days=7'],
        ['list_my_api_keys', { environment: 'production' }, '?environment=production'],
        ['list_my_campaigns', {}, ''],
        ['list_my_campaigns', { status: 'active', limit: 5 }, '?status=active&limit=5'],
        ['list_my_licenses', {}, ''],
        ['list_my_licenses', { status: 'pending_review', limit: 5 }, '?status=pending_review&limit=5'],
      ];
      for (const [tool, args, query] of cases) {
        const result = await client.callTool({ name: tool, arguments: args });
        expect(result.isError ?? false).toBe(false);
        expect(result.structuredContent).toEqual(await restTwin(tool, token, query));
        // Clients without structured output read the same JSON as text.
        expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(result.structuredContent);
      }
      const me = await client.callTool({ name: 'whoami' });
      expect(me.structuredContent).toMatchObject({ user_id: suite.users.demo, email: 'demo@example.com' });
      await client.close();
    });

    it('shows each user only their own account', async () => {
      const mine = await connect(await accessToken(suite.users.demo2, { resources: ['mcp'] }));
      const me = await mine.callTool({ name: 'whoami' });
      expect(me.structuredContent).toMatchObject({ user_id: suite.users.demo2, email: 'demo2@example.com' });
      const apps = (await mine.callTool({ name: 'list_my_apps' })).structuredContent as { apps: { id: string }[] };
      const theirs = (await restTwin('list_my_apps', await accessToken(suite.users.demo))) as { apps: { id: string }[] };
      expect(apps.apps.length).toBeGreaterThan(0);
      for (const app of theirs.apps) expect(apps.apps.map((a) => a.id)).not.toContain(app.id);
      await mine.close();
    });

    it('works with the sandbox token, with the same demo data as REST', async () => {
      const client = await connect('svc_sandbox');
      const me = await client.callTool({ name: 'whoami' });
      expect(me.structuredContent).toEqual({ ...(await restTwin('whoami', 'svc_sandbox')), sandbox: true });
      expect(me.structuredContent).toMatchObject({ name: SANDBOX_PROFILE.name, sandbox: true });
      const earnings = await client.callTool({ name: 'get_my_earnings', arguments: { payout_limit: 3 } });
      expect(earnings.structuredContent).toEqual(await restTwin('get_my_earnings', 'svc_sandbox', '?payout_limit=3'));
      await client.close();
    });

    it('pages list_my_campaigns as REST pages /api/v1/me/campaigns: the same pages, and each accepts the other’s cursor', async () => {
      const client = await connect('svc_sandbox');
      type Page = { campaigns: { id: string }[]; pagination: { next_cursor: string | null; has_more: boolean; limit: number }; sandbox?: true };
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let call = 0; call < 10; call++) {
        // Pages alternate between the tool and the REST route, each following the other's cursor.
        const args = cursor ? { limit: 2, cursor } : { limit: 2 };
        const query = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const rest = (await restTwin('list_my_campaigns', 'svc_sandbox', query)) as Page;
        const result = await client.callTool({ name: 'list_my_campaigns', arguments: args });
        expect(result.isError ?? false).toBe(false);
        const page = result.structuredContent as Page;
        expect(page).toEqual(rest);
        expect(page.sandbox).toBe(true);
        seen.push(...page.campaigns.map((c) => c.id));
        cursor = call % 2 === 0 ? page.pagination.next_cursor : rest.pagination.next_cursor;
        if (!page.pagination.has_more) break;
      }
      expect(cursor).toBeNull();
      expect(seen.length).toBeGreaterThan(2);
      expect(new Set(seen).size).toBe(seen.length);
      const bad = await client.callTool({ name: 'list_my_campaigns', arguments: { limit: 3, cursor: 'forged.cursor' } });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0]!.text).toMatch(/^invalid_request: .*cursor/);
      await client.close();
    });

    it('pages list_my_licenses as REST pages /api/v1/me/licenses: the same pages, and each accepts the other’s cursor', async () => {
      const client = await connect('svc_sandbox');
      type Page = { licenses: { id: string }[]; pagination: { next_cursor: string | null; has_more: boolean; limit: number }; sandbox?: true };
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let call = 0; call < 10; call++) {
        // Pages alternate between the tool and the REST route, each following the other's cursor.
        const args = cursor ? { limit: 2, cursor } : { limit: 2 };
        const query = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const rest = (await restTwin('list_my_licenses', 'svc_sandbox', query)) as Page;
        const result = await client.callTool({ name: 'list_my_licenses', arguments: args });
        expect(result.isError ?? false).toBe(false);
        const page = result.structuredContent as Page;
        expect(page).toEqual(rest);
        expect(page.sandbox).toBe(true);
        seen.push(...page.licenses.map((l) => l.id));
        cursor = call % 2 === 0 ? page.pagination.next_cursor : rest.pagination.next_cursor;
        if (!page.pagination.has_more) break;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(SANDBOX_LICENSES.map((l) => l.id));
      const bad = await client.callTool({ name: 'list_my_licenses', arguments: { limit: 3, cursor: 'forged.cursor' } });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0]!.text).toMatch(/^invalid_request: .*cursor/);
      await client.close();
    });

    describe('step-up authorization', () => {
      const only = (scopes: Scope[]) => accessToken(suite.users.demo, { scopes, resources: ['mcp'] });

      it.each(Object.entries(ACCOUNT_TOOLS))('answers %s without its scope with 403 insufficient_scope naming it', async (tool, { scope }) => {
        const other: Scope = scope === 'profile:read' ? 'apps:read' : 'profile:read';
        const { res, body } = await post(call(tool), await only([other]));
        expect(res.status).toBe(403);
        const challenge = res.headers.get('www-authenticate')!;
        expect(challenge).toMatch(/^Bearer error="insufficient_scope", error_description="[^"]+", scope="[^"]+", resource_metadata="[^"]+"$/);
        // The scope asked for keeps what the token had, so re-authorizing with it loses nothing.
        const asked = /scope="([^"]+)"/.exec(challenge)![1]!.split(' ');
        expect(asked.sort()).toEqual([other, scope].sort());
        expect(challenge).toContain(`resource_metadata="${METADATA}"`);
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining(scope) } });
      });

      it('lets the tools the token has scopes for run, and lists every tool', async () => {
        const client = await connect(await only(['profile:read']));
        expect((await client.listTools()).tools).toHaveLength(7);
        expect((await client.callTool({ name: 'whoami' })).structuredContent).toMatchObject({ user_id: suite.users.demo });
        const refused = await client.callTool({ name: 'list_my_apps' }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(StreamableHTTPError);
        expect((refused as StreamableHTTPError).code).toBe(403);
        await client.close();
      });

      it('refuses list_my_campaigns to a token with the four scopes an authorization without `scope` gives', async () => {
        const { res, body } = await post(call('list_my_campaigns'), await only(['profile:read', 'apps:read', 'earnings:read', 'api_keys:read']));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toContain('scope="profile:read apps:read earnings:read api_keys:read campaigns:read"');
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('campaigns:read') } });
      });

      it('refuses list_my_licenses to a token with the four scopes an authorization without `scope` gives, or with campaigns:read', async () => {
        const { res, body } = await post(call('list_my_licenses'), await only(['profile:read', 'apps:read', 'earnings:read', 'api_keys:read']));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toContain('scope="profile:read apps:read earnings:read api_keys:read licenses:read"');
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining('licenses:read') } });
        const campaignsOnly = await post(call('list_my_licenses'), await only(['campaigns:read']));
        expect(campaignsOnly.res.status).toBe(403);
        expect(campaignsOnly.res.headers.get('www-authenticate')).toContain('scope="campaigns:read licenses:read"');
      });

      it('refuses a JSON-RPC batch when any call in it lacks its scope, before any tool runs', async () => {
        const { res } = await post([call('whoami', {}, 1), call('get_my_earnings', {}, 2)], await only(['profile:read']));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toContain('scope="profile:read earnings:read"');
      });
    });

    it('answers invalid tool arguments as a tool error, without reading the account', async () => {
      const client = await connect(await accessToken(suite.users.demo, { resources: ['mcp'] }));
      for (const args of [{ payout_limit: 51 }, { payout_limit: -1 }, { payout_limit: 1.5 }, { payout_limit: '5' }]) {
        const result = await client.callTool({ name: 'get_my_earnings', arguments: args });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result.content)).toMatch(/payout_limit/);
      }
      const result = await client.callTool({ name: 'list_my_apps', arguments: { placement_status: 'archived' } });
      expect(result.isError).toBe(true);
      for (const args of [{ limit: 0 }, { limit: 101 }, { limit: '5' }, { status: 'ended' }, { cursor: '' }]) {
        const refused = await client.callTool({ name: 'list_my_campaigns', arguments: args });
        expect(refused.isError, JSON.stringify(args)).toBe(true);
      }
      for (const args of [{ limit: 0 }, { limit: 101 }, { limit: '5' }, { status: 'granted' }, { status: 'ACTIVE' }, { cursor: '' }]) {
        const refused = await client.callTool({ name: 'list_my_licenses', arguments: args });
        expect(refused.isError, JSON.stringify(args)).toBe(true);
      }
      await client.close();
    });

    it('answers an unknown tool as a JSON-RPC error', async () => {
      const { res, body } = await post(call('delete_everything'), await accessToken(suite.users.demo, { resources: ['mcp'] }));
      expect(res.status).toBe(200);
      expect(JSON.stringify(body)).toMatch(/delete_everything/);
    });

    it('answers a token whose user is gone with a tool error that names nothing internal', async () => {
      const created = await createPublisher({ email: `gone-${Date.now()}@example.com`, password: 'a-long-password', name: 'Gone', company: '' }, suite.db);
      if (!created.ok) throw new Error(created.error);
      const token = await accessToken(created.user.id, { resources: ['mcp'] });
      expect((await (await connect(token)).callTool({ name: 'whoami' })).isError ?? false).toBe(false);
      await rawAsService(suite.db, (q) => q.query('delete from public.users where id = $1', [created.user.id]));
      const client = await connect(token);
      const result = await client.callTool({ name: 'whoami' });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/^account_unavailable: /);
      await client.close();
    });

    it('is stateless: GET and DELETE answer 405, and no session id is handed out', async () => {
      const token = await accessToken(suite.users.demo, { resources: ['mcp'] });
      for (const m of ['GET', 'DELETE'] as const) {
        const res = await mcp[m](new Request(`${BASE}/mcp`, { method: m, headers: { authorization: `Bearer ${token}` } }), { params: Promise.resolve({}) });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      }
      const { res } = await post(
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        token,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('answers the request of the docs’ curl example (no initialize, no protocol-version header)', async () => {
      const res = await mcp.POST(
        new Request(`${BASE}/mcp`, {
          method: 'POST',
          headers: { authorization: 'Bearer svc_sandbox', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(call('get_my_earnings', { payout_limit: 1 })),
        }),
        { params: Promise.resolve({}) },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        jsonrpc: string;
        id: number;
        result: { structuredContent: Record<string, unknown>; content: { type: string; text: string }[] };
      };
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(body.result.structuredContent).toEqual(await restTwin('get_my_earnings', 'svc_sandbox', '?payout_limit=1'));
      expect(body.result.content).toEqual([{ type: 'text', text: JSON.stringify(body.result.structuredContent) }]);
    });

    it('answers malformed JSON with a JSON-RPC parse error', async () => {
      const { res, body } = await post('{"jsonrpc":', await accessToken(suite.users.demo, { resources: ['mcp'] }));
      expect(res.status).toBe(400);
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });
  });
}
