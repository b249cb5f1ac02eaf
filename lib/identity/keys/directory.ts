import { z } from 'zod';
import { as, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { ApiError, OriginRefused } from '../../platform/http/errors';
import { KEY_ENVIRONMENTS, KEY_KINDS, KEY_STATUSES, type KeyEnvironment, type KeyKind } from '../../schemas/account';
import { asApp } from './access';
import { API_KEY_PATTERN, hashApiKey, maskApiKey, SERVER_KEY_PATTERN } from './api-key';
import { serverKeyOperations } from '../../schemas/registry';

/**
 * The credential of the SDK surface (`/functions/v1/*`): an app's publishable key in the
 * `x-api-key` header (content/docs/sdk-integration.md), or, where an operation accepts one, the
 * app's secret server key as `Authorization: Bearer sk_…` (content/docs/server-side.md). The
 * kernel's credential step calls `authenticateApiKey` for every operation that declares
 * `{ kind: 'api-key' }` or `{ kind: 'app-key' }` (the latter also takes server keys), so each SDK
 * route gets the same answers: 401 `invalid_token` for a missing, malformed or unknown key, or a
 * key sent where its kind does not go; 403 `forbidden` for a revoked key, a key of an archived
 * app, a browser on an origin the app has not allowed, or a server key sent from a web page (any
 * request with `Origin`); and, as on every route, 503 `unavailable` (from the kernel) when the
 * database cannot be asked.
 *
 * The two kinds never stand in for each other: a publishable key, which pages carry, is never
 * accepted as a bearer, and a server key is never accepted in `x-api-key`, where a page would
 * send it.
 *
 * The lookup runs as `anon`, not as the service: `public.sdk_key(hash)` answers the one key whose
 * SHA-256 is given, with its app, in one probe of a unique index; knowing the key is what
 * authorizes reading its row. Each instance keeps what it looked up for `DIRECTORY_TTL_MS`, so a
 * revoked key is refused everywhere within that time, and most requests never ask the database.
 */

export const API_KEY_HEADER = 'x-api-key';

/** How long an instance trusts a key or app it looked up: revocation reaches every instance within it. */
export const DIRECTORY_TTL_MS = 4_000;
/** Entries kept per map: a flood of made-up keys is not cached at all, and real ones are bounded. */
const DIRECTORY_MAX = 10_000;

/** An app as the SDK surface needs it. */
export interface SdkApp {
  appId: string;
  appName: string;
  /** The publisher who owns the app: the owner of every row its SDK requests write. */
  userId: string;
  archived: boolean;
  /** Web origins whose pages may use the app's keys; requests without `Origin` need none. */
  allowedOrigins: readonly string[];
}

/** Who calls an SDK route with a key: the key's app, and the key. */
export interface AppPrincipal extends SdkApp {
  kind: 'app';
  keyId: string;
  keyName: string;
  /** `server` when the app's server called with its secret key: it may name the end user's client. */
  keyKind: KeyKind;
  environment: KeyEnvironment;
  /** The key as a publisher sees it after creation: prefix, `…`, last 4. */
  maskedKey: string;
}

/** The row `public.sdk_key` answers for a key. */
export const sdkKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(KEY_KINDS),
  environment: z.enum(KEY_ENVIRONMENTS),
  status: z.enum(KEY_STATUSES),
  key_prefix: z.string(),
  key_last4: z.string(),
  app_id: z.string(),
  app_name: z.string(),
  app_archived: z.boolean(),
  user_id: z.string(),
  allowed_origins: z.array(z.string()),
});
export type SdkKeyRow = z.output<typeof sdkKeyRow>;

/** The key a request presents: none, or the header's value when it has the shape of a key (null when not). */
export function presentedKey(headers: Headers): { present: false } | { present: true; key: string | null } {
  const value = headers.get(API_KEY_HEADER);
  if (value === null) return { present: false };
  // Two x-api-key headers arrive joined by ", ", which is no key either.
  return { present: true, key: API_KEY_PATTERN.test(value) ? value : null };
}

/** The server key a request presents as `Authorization: Bearer sk_…`, or null (no bearer, or a bearer that is no server key). */
export function presentedServerKey(headers: Headers): string | null {
  const value = headers.get('authorization');
  const match = value === null ? null : /^Bearer (\S+)$/i.exec(value);
  return match && SERVER_KEY_PATTERN.test(match[1]!) ? match[1]! : null;
}

/** Whether the request carries a bearer that looks like a server key (well formed or not): `sk_` after `Bearer `. */
export function bearsServerKey(headers: Headers): boolean {
  return /^Bearer\s+sk_/i.test(headers.get('authorization') ?? '');
}

/** The app a key's row authenticates; throws the 401 of an unknown key or the 403 of a refused one. */
export function appOfKey(row: SdkKeyRow | undefined): AppPrincipal {
  if (!row) throw new ApiError('invalid_token', 'Unknown API key: check the key your app sends, or create one in the console.');
  if (row.app_archived) throw new ApiError('forbidden', "This API key's app has been archived: its keys no longer work.");
  if (row.status === 'revoked') throw new ApiError('forbidden', 'This API key has been revoked: switch to another key.');
  return {
    kind: 'app',
    appId: row.app_id,
    appName: row.app_name,
    userId: row.user_id,
    archived: row.app_archived,
    allowedOrigins: row.allowed_origins,
    keyId: row.id,
    keyName: row.name,
    keyKind: row.kind,
    environment: row.environment,
    maskedKey: maskApiKey(row.key_prefix, row.key_last4),
  };
}

/**
 * The browser rule: a request with an `Origin` header comes from a web page, which must be one
 * of the app's allowed origins; a request without one (a server, a native app) needs none.
 */
export function checkOrigin(app: Pick<SdkApp, 'allowedOrigins'>, headers: Headers): void {
  const origin = headers.get('origin');
  if (origin === null || app.allowedOrigins.includes(origin)) return;
  throw new OriginRefused(`The origin ${origin.slice(0, 200)} is not allowed to use this app's keys: add it to the app's allowed origins in the console.`);
}

/** The row of the key, found by its hash as `anon`, or undefined when no key has that hash. */
export async function findApiKey(db: Database, key: string): Promise<SdkKeyRow | undefined> {
  const rows = await as(db, 'anon').query(sql`select * from public.sdk_key(${hashApiKey(key)})`, sdkKeyRow);
  // key_hash is unique: a second row would be a broken schema, and neither row may be trusted.
  if (rows.length > 1) throw new Error('public.sdk_key answered more than one key for one hash');
  return rows[0];
}

const appRow = z.object({ id: z.string(), name: z.string(), user_id: z.string(), archived: z.boolean(), allowed_origins: z.array(z.string()) });

/** An app by its id, read as that app's SDK role (a decision token names the app; RLS shows no other). */
export async function findApp(db: Database, appId: string): Promise<SdkApp | undefined> {
  const [app] = await asApp(db, { appId }).query(sql`select id, name, user_id, archived_at is not null as archived, allowed_origins from public.apps`, appRow);
  if (!app) return undefined;
  return { appId: app.id, appName: app.name, userId: app.user_id, archived: app.archived, allowedOrigins: app.allowed_origins };
}

/**
 * What this instance looked up, for `DIRECTORY_TTL_MS`: keys by hash of the key (found ones only,
 * revoked included, so a revoked key is refused without asking again) and apps by id. Requests
 * that need the same entry while it is being looked up wait for that one lookup: when an entry
 * expires under load, the database is asked once, not once per request in flight.
 */
export class SdkDirectory {
  private readonly keys = new Map<string, { row: SdkKeyRow; at: number }>();
  private readonly apps = new Map<string, { app: SdkApp | undefined; at: number }>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly now: () => number) {}

  async key(db: () => Promise<Database>, key: string): Promise<SdkKeyRow | undefined> {
    const kept = this.keys.get(key);
    if (kept && this.now() - kept.at < DIRECTORY_TTL_MS) return kept.row;
    return this.once(`key:${key}`, async () => {
      const at = this.now();
      const row = await findApiKey(await db(), key);
      // Unknown keys are not kept: a flood of made-up keys must not fill the map.
      if (row) remember(this.keys, key, { row, at });
      else this.keys.delete(key);
      return row;
    });
  }

  async app(db: () => Promise<Database>, appId: string): Promise<SdkApp | undefined> {
    const kept = this.apps.get(appId);
    if (kept && this.now() - kept.at < DIRECTORY_TTL_MS) return kept.app;
    return this.once(`app:${appId}`, async () => {
      const at = this.now();
      const app = await findApp(await db(), appId);
      remember(this.apps, appId, { app, at });
      return app;
    });
  }

  /** Forgets everything (the console calls it after a revocation on this instance). */
  clear(): void {
    this.keys.clear();
    this.apps.clear();
    this.pending.clear();
  }

  /** `look` once for everyone asking for `name` while it runs; a failure reaches them all, and is not kept. */
  private once<T>(name: string, look: () => Promise<T>): Promise<T> {
    const running = this.pending.get(name) as Promise<T> | undefined;
    if (running) return running;
    const started = look().finally(() => {
      if (this.pending.get(name) === started) this.pending.delete(name);
    });
    this.pending.set(name, started);
    return started;
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= DIRECTORY_MAX) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** What checking a key needs: the database and this instance's directory. */
export interface KeyCheck {
  database(): Promise<Database>;
  readonly sdkDirectory: SdkDirectory;
}

/** Where server keys are accepted (the operations that declare `app-key`), for the refusal that names them. */
const serverKeyPlaces = () =>
  serverKeyOperations()
    .map((op) => `${op.method} ${op.path}`)
    .join(' and ');

/**
 * The app of the request's key; throws its 401 or 403, or the database's failure (module
 * comment). `serverKeys`: whether this operation also accepts a server key as a bearer.
 */
export async function authenticateApiKey(request: { headers: Headers }, services: KeyCheck, serverKeys = false): Promise<AppPrincipal> {
  const presented = presentedKey(request.headers);
  if (presented.present) {
    if (presented.key === null) {
      const value = request.headers.get(API_KEY_HEADER)!;
      if (SERVER_KEY_PATTERN.test(value.trim())) {
        throw new ApiError(
          'invalid_token',
          "A server key (sk_…) is a secret: send it from your server as Authorization: Bearer, never in x-api-key, and never from a web page. Pages and apps use the app's publishable key (pk_…) in x-api-key.",
        );
      }
      throw new ApiError('invalid_token', 'The x-api-key header does not hold an API key: a key is pk_live_ or pk_test_ followed by 32 letters and digits.');
    }
    return checked(await services.sdkDirectory.key(() => services.database(), presented.key), 'publishable', request.headers);
  }
  if (bearsServerKey(request.headers)) {
    if (!serverKeys) {
      throw new ApiError('invalid_token', `Server keys are accepted only by ${serverKeyPlaces()}; this endpoint takes the app's publishable key in x-api-key.`);
    }
    const key = presentedServerKey(request.headers);
    if (key === null) {
      throw new ApiError(
        'invalid_token',
        'The Authorization header does not hold a server key: send Bearer sk_live_ or sk_test_ followed by 32 letters and digits.',
      );
    }
    return checked(await services.sdkDirectory.key(() => services.database(), key), 'server', request.headers);
  }
  throw new ApiError(
    'invalid_token',
    serverKeys
      ? "An API key is required: send your app's publishable key in the x-api-key header, or from your server its server key as Authorization: Bearer."
      : "An API key is required: send your app's key in the x-api-key header.",
  );
}

/** The app of a key found where keys of `kind` are sent: the 401 of an unknown key, the 403s of a refused one or a server key sent from a page. */
function checked(row: SdkKeyRow | undefined, kind: KeyKind, headers: Headers): AppPrincipal {
  // A key of the other kind cannot have this shape: the tag is part of the key (./api-key.ts).
  if (row && row.kind !== kind) throw new Error(`a ${kind} key's hash found a ${row.kind} key`);
  const app = appOfKey(row);
  if (kind === 'server' && headers.has('origin')) {
    throw new OriginRefused(
      "Server keys are for servers: this request came from a web page (it has an Origin header). A page uses the app's publishable key (pk_…) in x-api-key; keep the server key on your server.",
    );
  }
  if (kind === 'publishable') checkOrigin(app, headers);
  return app;
}
