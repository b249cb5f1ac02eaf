import * as me from '@/app/api/v1/me/route';
import * as apps from '@/app/api/v1/me/apps/route';
import * as earnings from '@/app/api/v1/me/earnings/route';
import * as apiKeys from '@/app/api/v1/me/api-keys/route';
import * as batch from '@/app/api/v1/batch/route';
import type { Engine, Transaction } from '@/lib/db';
import type { Scope } from '@/lib/oauth/scopes';

/** The four account routes, their scopes, and helpers to call them as a client would. */

type Handler = (req: Request, ctx: { params: Promise<Record<string, never>> }) => Response | Promise<Response>;

export const ACCOUNT_ROUTES: { path: string; scope: Scope; GET: Handler }[] = [
  { path: '/api/v1/me', scope: 'profile:read', GET: me.GET },
  { path: '/api/v1/me/apps', scope: 'apps:read', GET: apps.GET },
  { path: '/api/v1/me/earnings', scope: 'earnings:read', GET: earnings.GET },
  { path: '/api/v1/me/api-keys', scope: 'api_keys:read', GET: apiKeys.GET },
];

const ctx = () => ({ params: Promise.resolve({}) });

export function headers(token?: string): Record<string, string> {
  return { 'x-forwarded-for': '192.0.2.77', ...(token === undefined ? {} : { authorization: token.includes(' ') ? token : `Bearer ${token}` }) };
}

export async function get(handler: Handler, path: string, token?: string) {
  const res = await handler(new Request(`http://localhost:3000${path}`, { headers: headers(token) }), ctx());
  return { res, text: await res.clone().text(), body: (await res.json()) as Record<string, unknown> };
}

export async function postBatch(body: unknown, init: { token?: string; key?: string; raw?: string } = {}) {
  const res = await batch.POST(
    new Request('http://localhost:3000/api/v1/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers(init.token), ...(init.key === undefined ? {} : { 'idempotency-key': init.key }) },
      body: init.raw ?? JSON.stringify(body),
    }),
    ctx(),
  );
  const text = await res.text();
  return { res, text, body: JSON.parse(text) as Record<string, unknown> & { responses: { id: string | number; status: number; body: Record<string, unknown> }[] } };
}

/**
 * An engine that counts the account reads run as a user (each begins by setting the claims),
 * or fails every transaction while `failing` is set (a database outage).
 */
export function instrumented(engine: Engine) {
  const state = { userReads: 0, failing: false };
  const wrapped: Engine = {
    ...engine,
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) => {
      if (state.failing) return Promise.reject(new Error('connection refused (simulated outage)'));
      return engine.transaction((tx) =>
        fn({
          ...tx,
          query: ((text: string, params?: unknown[]) => {
            if (text.includes("set_config('role', 'authenticated'")) state.userReads++;
            return tx.query(text, params as never);
          }) as Transaction['query'],
        }),
      );
    },
  };
  return { engine: wrapped, state };
}
