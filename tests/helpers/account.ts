import type { Engine, Transaction } from '@/lib/platform/db/engine';
import type { Scope } from '@/lib/identity/oauth/scopes';
import { protectedOperations, type RoutePath } from '@/lib/schemas/registry';
import { derivedEngine } from './db';
import { handlersOf, type TestHandler } from './routes';

/** The account routes of the registry (each needs a token with a scope), and helpers to call them as a client would. */

type Handler = (req: Request, ctx: { params: Promise<Record<string, never>> }) => Response | Promise<Response>;

/** Every REST operation that needs an access token with a scope: the shared bad-credential matrix runs on each. */
export const ACCOUNT_ROUTES: { path: RoutePath; scope: Scope; GET: TestHandler }[] = protectedOperations()
  .filter((op) => op.route.apiVersion && op.method === 'GET' && op.credential.scope)
  .map((op) => ({ path: op.path, scope: op.credential.scope!, GET: handlersOf(op.path).GET }));

const ctx = () => ({ params: Promise.resolve({}) });

export function headers(token?: string): Record<string, string> {
  return { 'x-forwarded-for': '192.0.2.77', ...(token === undefined ? {} : { authorization: token.includes(' ') ? token : `Bearer ${token}` }) };
}

export async function get(handler: Handler, path: string, token?: string) {
  const res = await handler(new Request(`http://localhost:3000${path}`, { headers: headers(token) }), ctx());
  return { res, text: await res.clone().text(), body: (await res.json()) as Record<string, unknown> };
}

export async function postBatch(body: unknown, init: { token?: string; key?: string; raw?: string } = {}) {
  const res = await handlersOf('/api/v1/batch').POST(
    new Request('http://localhost:3000/api/v1/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers(init.token), ...(init.key === undefined ? {} : { 'idempotency-key': init.key }) },
      body: init.raw ?? JSON.stringify(body),
    }),
    ctx(),
  );
  const text = await res.text();
  return {
    res,
    text,
    body: JSON.parse(text) as Record<string, unknown> & { responses: { id: string | number; status: number; body: Record<string, unknown> }[] },
  };
}

/**
 * An engine that counts the account reads run as a user (each begins by setting the role
 * `authenticated`, sent as one message with its read or as the first statement of a transaction),
 * or fails every transaction and message while `failing` is set (a database outage).
 */
export function instrumented(engine: Engine) {
  const state = { userReads: 0, failing: false };
  // What the driver throws when the server is down: a socket error with its errno code.
  const outage = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (simulated outage)'), { code: 'ECONNREFUSED' }));
  const wrapped: Engine = derivedEngine(engine, {
    script: (statements, options) => {
      if (state.failing) return outage();
      // lib/platform/db/roles.ts writes the role as a literal in a one-message script.
      if (statements.some((s) => s.includes("set_config('role', E'authenticated', true)"))) state.userReads++;
      return engine.script(statements, options);
    },
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) => {
      if (state.failing) return outage();
      return engine.transaction((tx) =>
        fn({
          ...tx,
          query: ((text: string, params?: unknown[]) => {
            // In a transaction, the role is bound as a parameter.
            if (/^select set_config\('request\.jwt\.claims', \$1, true\), set_config\('role', \$2, true\)$/.test(text) && params?.[1] === 'authenticated')
              state.userReads++;
            return tx.query(text, params as never);
          }) as Transaction['query'],
        }),
      );
    },
  });
  return { engine: wrapped, state };
}
