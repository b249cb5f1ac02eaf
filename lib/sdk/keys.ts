import { z } from 'zod';
import { asAnonymous, type Engine } from '../db/database';
import { isDatabaseError } from '../db/errors';
import { ApiError } from '../http/errors';
import { describeError, log } from '../log';
import { KEY_ENVIRONMENTS, KEY_STATUSES, type KeyEnvironment } from '../schemas/account';
import { API_KEY_PATTERN, hashApiKey, maskApiKey } from './api-key';

/**
 * The credential of the SDK surface (`/functions/v1/*`): an app's publishable key in the
 * `x-api-key` header (content/docs/sdk-integration.md). The kernel's credential step calls
 * `authenticateApiKey` for every operation that declares `{ kind: 'api-key' }`, so each SDK route
 * gets the same answers: 401 `invalid_token` for a missing, malformed or unknown key, 403
 * `forbidden` for a revoked key or a key of an archived app, 503 `unavailable` when the database
 * cannot be asked.
 *
 * The lookup runs as `anon`, not as the service: `public.sdk_key(hash)` (migration
 * 20261124000200) answers the one key whose SHA-256 is given, and nothing else, so knowing the
 * key is what authorizes reading its row.
 */

export const API_KEY_HEADER = 'x-api-key';

/** Who calls an SDK route: the app of a valid key, and the key. */
export interface AppPrincipal {
  kind: 'app';
  appId: string;
  appName: string;
  keyId: string;
  keyName: string;
  environment: KeyEnvironment;
  /** The key as a publisher sees it after creation: prefix, `…`, last 4. */
  maskedKey: string;
}

/** The row `public.sdk_key` answers for a key. */
export const sdkKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  environment: z.enum(KEY_ENVIRONMENTS),
  status: z.enum(KEY_STATUSES),
  key_prefix: z.string(),
  key_last4: z.string(),
  app_id: z.string(),
  app_name: z.string(),
  app_archived: z.boolean(),
});
export type SdkKeyRow = z.output<typeof sdkKeyRow>;

/** The key a request presents: none, or the header's value when it has the shape of a key (null when not). */
export function presentedKey(headers: Headers): { present: false } | { present: true; key: string | null } {
  const value = headers.get(API_KEY_HEADER);
  if (value === null) return { present: false };
  // Two x-api-key headers arrive joined by ", ", which is no key either.
  return { present: true, key: API_KEY_PATTERN.test(value) ? value : null };
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
    keyId: row.id,
    keyName: row.name,
    environment: row.environment,
    maskedKey: maskApiKey(row.key_prefix, row.key_last4),
  };
}

/** The row of the key, found by its hash as `anon`, or undefined when no key has that hash. */
export async function findApiKey(db: Engine, key: string): Promise<SdkKeyRow | undefined> {
  const rows = await asAnonymous(db, (q) =>
    q.query('select id, name, environment, status, key_prefix, key_last4, app_id, app_name, app_archived from public.sdk_key($1)', [hashApiKey(key)]),
  );
  // key_hash is unique: a second row would be a broken schema, and neither row may be trusted.
  if (rows.length > 1) throw new Error('public.sdk_key answered more than one key for one hash');
  return rows.length === 1 ? sdkKeyRow.parse(rows[0]) : undefined;
}

/** What checking a key needs: the database. */
export interface KeyCheck {
  database(): Promise<Engine>;
}

/** The app of the request's key; throws its 401, 403 or 503 (module comment). */
export async function authenticateApiKey(request: { headers: Headers }, services: KeyCheck): Promise<AppPrincipal> {
  const presented = presentedKey(request.headers);
  if (!presented.present) throw new ApiError('invalid_token', "An API key is required: send your app's key in the x-api-key header.");
  if (presented.key === null) {
    throw new ApiError('invalid_token', 'The x-api-key header does not hold an API key: a key is pk_live_ or pk_test_ followed by 32 letters and digits.');
  }
  let row: SdkKeyRow | undefined;
  try {
    row = await findApiKey(await services.database(), presented.key);
  } catch (err) {
    // Only the database's own failures are "retry later"; anything else is a bug, and a 500.
    if (!isDatabaseError(err)) throw err;
    log.error('API key lookup failed', describeError(err));
    throw new ApiError('unavailable', 'API keys cannot be checked right now; retry later.');
  }
  return appOfKey(row);
}
