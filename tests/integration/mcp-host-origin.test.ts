import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetEnv } from '@/lib/platform/env';
import { UNLIMITED } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * DNS-rebinding protection at both MCP endpoints (lib/platform/http/host-origin.ts), through the route
 * files: a request for a host that is not one of the deployment's names, or from a web page on an
 * origin it does not allow, is a 403 in the API envelope before any JSON-RPC message is read;
 * the deployment's own names, loopback names and requests without `Origin` are served. The
 * deployment here is PUBLIC_BASE_URL's default, http://localhost:3000.
 */

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host-origin-test', version: '1.0.0' } },
};

async function post(path: '/mcp' | '/docs/mcp', headers: Record<string, string>) {
  const res = await handlersOf(path).POST(
    new Request(`http://localhost:3000${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': '192.0.2.91', ...headers },
      body: JSON.stringify(INITIALIZE),
    }),
    { params: Promise.resolve({}) },
  );
  const text = await res.text();
  return { res, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const EVIL = { host: 'evil.example.com', origin: 'http://evil.example.com' };
const SANDBOX = { authorization: 'Bearer svc_sandbox' };

beforeAll(() => {
  // No database: initialize reads none, and the sandbox token never does.
  setTestServices(makeServices({ rateLimiter: UNLIMITED() }));
  return () => setTestServices(undefined);
});

afterEach(() => {
  delete process.env.MCP_ALLOWED_ORIGINS;
  delete process.env.MCP_ALLOWED_HOSTS;
  resetEnv();
});

describe.each([
  ['/docs/mcp', {}],
  ['/mcp', SANDBOX],
] as const)('%s', (path, credential) => {
  it("refuses the MCP conformance suite's rebinding request (Host and Origin evil.example.com) with a 403 in the API envelope", async () => {
    const { res, body } = await post(path, { ...credential, ...EVIL });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining('"evil.example.com"') } });
  });

  it('refuses a foreign Host without Origin, and a foreign Origin on our own Host', async () => {
    expect((await post(path, { ...credential, host: 'evil.example.com' })).res.status).toBe(403);
    expect((await post(path, { ...credential, host: 'evil.example.com:3000' })).res.status).toBe(403);
    const { res, body } = await post(path, { ...credential, host: 'localhost:3000', origin: 'https://evil.example.com' });
    expect(res.status).toBe(403);
    expect(JSON.stringify(body)).toContain('https://evil.example.com');
    expect((await post(path, { ...credential, host: 'localhost:3000', origin: 'null' })).res.status).toBe(403);
  });

  it("serves the deployment's own host and loopback names, with and without a page's Origin", async () => {
    const served: Record<string, string>[] = [
      { host: 'localhost:3000' },
      { host: 'localhost:3000', origin: 'http://localhost:3000' },
      { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' },
      { host: '[::1]:3000' },
      { host: 'localhost:3000', origin: 'http://localhost:6274' },
      {},
    ];
    for (const headers of served) {
      const { res, body } = await post(path, { ...credential, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: expect.any(Object) } });
    }
  });

  it('serves the hosts and origins the configuration adds', async () => {
    process.env.MCP_ALLOWED_HOSTS = 'mcp.monetize.example';
    process.env.MCP_ALLOWED_ORIGINS = 'https://agent.example';
    resetEnv();
    expect((await post(path, { ...credential, host: 'mcp.monetize.example', origin: 'https://agent.example' })).res.status).toBe(200);
    expect((await post(path, { ...credential, host: 'mcp.monetize.example', origin: 'https://mcp.monetize.example' })).res.status).toBe(200);
    expect((await post(path, { ...credential, host: 'localhost:3000', origin: 'https://other-agent.example' })).res.status).toBe(403);
  });
});

describe('/mcp without a token', () => {
  it('still answers the 401 that starts authorization, whatever the host: nothing runs without a token', async () => {
    const { res } = await post('/mcp', EVIL);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
