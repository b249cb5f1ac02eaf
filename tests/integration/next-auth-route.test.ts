import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { MAX_BODY_BYTES } from '@/lib/platform/http/input';
import { handlersOf } from '../helpers/routes';
import { makeServices } from '../helpers/services';

/**
 * /api/auth/* (next-auth's endpoints) behind the kernel like every route: its client logger
 * writes nothing to the server log, bodies are capped, and each address has its budget.
 * (Beyond the kernel, next-auth needs Next's request scope; e2e/console.spec.ts signs in and out
 * through it in a real browser.)
 */

const ctx = (nextauth: string[]) => ({ params: Promise.resolve({ nextauth }) });

function post(action: string, body: string, ip = '192.0.2.120', type = 'application/json'): Request {
  return new Request(`http://localhost:3000/api/auth/${action}`, { method: 'POST', headers: { 'content-type': type, 'x-forwarded-for': ip }, body });
}

describe('/api/auth/*', () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers next-auth's client logger without writing anything to the server log", async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const lines = vi.spyOn(console, 'log').mockImplementation(() => {});
    const services = makeServices();
    const noise = JSON.stringify({ level: 'error', code: 'CLIENT_FETCH_ERROR', message: 'x'.repeat(50_000) });
    const res = await handlersOf('/api/auth/[...nextauth]', services).POST(post('_log', noise), ctx(['_log']));
    expect(res.status).toBe(204);
    expect(errors).not.toHaveBeenCalled();
    expect(lines).not.toHaveBeenCalled();
  });

  it('refuses a body over the cap with 413, on the logger and every other action', async () => {
    const services = makeServices();
    for (const action of ['_log', 'signout', 'callback/credentials']) {
      const res = await handlersOf('/api/auth/[...nextauth]', services).POST(
        post(action, 'x'.repeat(MAX_BODY_BYTES + 1), '192.0.2.121', 'application/x-www-form-urlencoded'),
        ctx(action.split('/')),
      );
      expect(res.status, action).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('counts each address against the rate limit: past it, 429 with Retry-After; another address goes on', async () => {
    const services = makeServices({ rateLimiter: new MemoryRateLimiter({ max: 3, windowSeconds: 60 }) });
    const route = handlersOf('/api/auth/[...nextauth]', services);
    for (let i = 0; i < 3; i++) expect((await route.POST(post('_log', '{}', '192.0.2.122'), ctx(['_log']))).status).toBe(204);
    const refused = await route.POST(post('_log', '{}', '192.0.2.122'), ctx(['_log']));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
    expect((await route.POST(post('_log', '{}', '192.0.2.123'), ctx(['_log']))).status).toBe(204);
  });
});
