import type { Engine, Queryable } from './database';

/**
 * Service access: OAuth bookkeeping, idempotency records and seeding reach across users
 * through here, as `service_role` (BYPASSRLS). (The SDK surface's key lookup does not: it runs as
 * `anon`, through `public.sdk_key`, lib/sdk/keys.ts.) Account reads must never import this
 * module; the lint configuration forbids it under lib/account and app/api/v1/me.
 */
export async function asService<T>(db: Engine, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query("select set_config('role', 'service_role', true)");
    return fn({ query: tx.query });
  });
}
