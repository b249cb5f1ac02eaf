import { createApiKey, createApp, createPlacement } from '@/lib/publisher/writes';
import type { Engine } from '@/lib/platform/db/engine';
import type { DeclarableMethod } from '@/lib/platform/http/declaration';
import type { KeyEnvironment } from '@/lib/identity/keys/api-key';
import { generateApiKey } from '@/lib/identity/keys/api-key';
import { SANDBOX_TOKEN } from '@/lib/identity/oauth/bearer';
import { apiKeyOperations, serverKeyOperations, type RoutePath } from '@/lib/schemas/registry';
import type { Services } from '@/lib/services';
import { handlersOf, type TestHandler } from './routes';
import { rawAsService } from './roles';

/**
 * The SDK surface's routes in the registry (each needs an app's key in `x-api-key`), the shared
 * bad-key matrix every one of them must refuse, and keys made the way a publisher makes them,
 * in the console.
 */

export const SDK_KEY_ROUTES: { path: RoutePath; method: DeclarableMethod; handler: TestHandler }[] = apiKeyOperations().map((op) => ({
  path: op.path,
  method: op.method,
  handler: handlersOf(op.path)[op.method],
}));

/** The SDK routes that also take an app's server key as a bearer (content/docs/server-side.md). */
export const SERVER_KEY_ROUTES: { path: RoutePath; method: DeclarableMethod; handler: TestHandler }[] = serverKeyOperations().map((op) => ({
  path: op.path,
  method: op.method,
  handler: handlersOf(op.path)[op.method],
}));

/**
 * Requests that try a server key and must fail, at every route that takes one: 401
 * `invalid_token` for a key that is not one, unknown, or sent where server keys do not go; 403
 * `forbidden` for a good key sent from a web page. `serverKey` is a working server key,
 * `publishableKey` a working publishable key of the same app.
 */
export function badServerKeys(serverKey: string, publishableKey: string): { label: string; headers: Record<string, string>; status: 401 | 403 }[] {
  return [
    { label: 'an unknown well-formed live server key', headers: { authorization: `Bearer ${generateApiKey('production', 'server').key}` }, status: 401 },
    { label: 'an unknown well-formed test server key', headers: { authorization: `Bearer ${generateApiKey('development', 'server').key}` }, status: 401 },
    { label: 'the key cut short', headers: { authorization: `Bearer ${serverKey.slice(0, -1)}` }, status: 401 },
    { label: 'the key with a space inside', headers: { authorization: `Bearer ${serverKey.slice(0, 20)} ${serverKey.slice(20)}` }, status: 401 },
    { label: 'the key under another tag', headers: { authorization: `Bearer ${serverKey.replace(/^sk_[a-z]+_/, 'sk_prod_')}` }, status: 401 },
    { label: 'the key in x-api-key', headers: { 'x-api-key': serverKey }, status: 401 },
    { label: 'the key as Basic credentials', headers: { authorization: `Basic ${serverKey}` }, status: 401 },
    { label: 'the key with no scheme', headers: { authorization: serverKey }, status: 401 },
    { label: 'a publishable key as a bearer', headers: { authorization: `Bearer ${publishableKey}` }, status: 401 },
    { label: 'the sandbox token as a bearer', headers: { authorization: `Bearer ${SANDBOX_TOKEN}` }, status: 401 },
    { label: 'the key from a web page (Origin)', headers: { authorization: `Bearer ${serverKey}`, origin: 'https://writer.example' }, status: 403 },
    { label: 'the key from a page of no origin (Origin: null)', headers: { authorization: `Bearer ${serverKey}`, origin: 'null' }, status: 403 },
  ];
}

/**
 * Requests without a valid key, each answered 401 `invalid_token` at every SDK route. `validKey`
 * is a working key, sent where a key does not go (as a bearer token).
 */
export function badKeys(validKey: string): { label: string; headers: Record<string, string> }[] {
  return [
    { label: 'no x-api-key header', headers: {} },
    { label: 'an empty x-api-key header', headers: { 'x-api-key': '' } },
    { label: 'a malformed key (too short)', headers: { 'x-api-key': validKey.slice(0, -1) } },
    { label: 'a malformed key (unknown tag)', headers: { 'x-api-key': validKey.replace(/^pk_[a-z]+_/, 'pk_prod_') } },
    { label: 'the key with spaces inside', headers: { 'x-api-key': `${validKey.slice(0, 20)} ${validKey.slice(20)}` } },
    { label: 'an unknown well-formed production key', headers: { 'x-api-key': generateApiKey('production').key } },
    { label: 'an unknown well-formed development key', headers: { 'x-api-key': generateApiKey('development').key } },
    { label: 'a valid key sent as a Bearer token instead', headers: { authorization: `Bearer ${validKey}` } },
    { label: 'the sandbox token in x-api-key', headers: { 'x-api-key': SANDBOX_TOKEN } },
    { label: 'the sandbox token as a Bearer token', headers: { authorization: `Bearer ${SANDBOX_TOKEN}` } },
  ];
}

/** A new key for one of the publisher's apps (the first one not archived, unless `appId` is given), made as the console makes it. */
export async function newKey(
  db: Engine,
  userId: string,
  options: { appId?: string; environment?: KeyEnvironment; name?: string } = {},
): Promise<{ id: string; key: string; masked_key: string; appId: string }> {
  const appId = options.appId ?? (await firstApp(db, userId));
  const made = await createApiKey(db, userId, { app_id: appId, name: options.name ?? 'Test key', environment: options.environment ?? 'production' });
  if (!made.ok) throw new Error(`createApiKey refused: ${made.error}`);
  return { ...made.value, appId };
}

/** A new app of the publisher's, made as the console makes it. */
export async function newApp(db: Engine, userId: string, name: string): Promise<string> {
  const slug = `${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${Math.random().toString(36).slice(2, 8)}`;
  const made = await createApp(db, userId, { name, slug, description: '', category: [], allowed_origins: [] });
  if (!made.ok) throw new Error(`createApp refused: ${made.error}`);
  return made.value.id;
}

/** An app of its own, for a test that changes its rules: a new app of the publisher's with an active sponsored-card placement and a key. */
export interface SdkApp {
  appId: string;
  key: string;
  placement: string;
}

export async function newSdkApp(db: Engine, userId: string): Promise<SdkApp> {
  const appId = await newApp(db, userId, 'Beside answers');
  const placement = await createPlacement(db, userId, { app_id: appId, name: 'Beside answers', format: 'sponsored_card' });
  if (!placement.ok) throw new Error(`createPlacement refused: ${placement.error}`);
  const key = await newKey(db, userId, { appId });
  return { appId, key: key.key, placement: placement.value.id };
}

async function firstApp(db: Engine, userId: string): Promise<string> {
  // Read as the service would; the test database is the test's own.
  const [row] = await db.query<{ id: string }>('select id from public.apps where user_id = $1 and archived_at is null order by created_at, id limit 1', [
    userId,
  ]);
  if (!row) throw new Error(`user ${userId} has no app`);
  return row.id;
}

/** A request to an SDK route, from the address the suite uses. */
export function sdkRequest(path: string, headers: Record<string, string>, init: { method?: string } = {}): Request {
  return new Request(`http://localhost:3000${path}`, { method: init.method ?? 'GET', headers: { 'x-forwarded-for': '192.0.2.66', ...headers } });
}

/** A call to any SDK route, from `ip`, answered with its status, headers and parsed body. */
export async function sdk(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; ip?: string; services?: Services } = {},
  // The body is read as the tests assert on it; where its shape matters a test parses it with the route's schema.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const route = path.split('?')[0] as RoutePath;
  const method = (init.method ?? (init.body === undefined ? 'GET' : 'POST')) as DeclarableMethod | 'OPTIONS';
  const headers: Record<string, string> = { 'x-forwarded-for': init.ip ?? '192.0.2.66', ...init.headers };
  if (init.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const request = new Request(`http://localhost:3000${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const res = await handlersOf(route, init.services)[method](request, { params: Promise.resolve({}) });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * Ads served in the last `seconds` seconds are made that old, as if a person had looked at them
 * that long: no impression is billable sooner than its viewability rule's seconds after its ad,
 * on the server's clock (content/docs/sdk-integration.md, Counting rules).
 */
export async function servedSecondsAgo(db: Engine, seconds: number): Promise<void> {
  await rawAsService(db, (q) =>
    q.query('update public.ad_decisions set created_at = now() - make_interval(secs => $1) where created_at > now() - make_interval(secs => $1)', [seconds]),
  );
}
