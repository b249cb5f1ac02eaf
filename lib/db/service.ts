import { database, type Engine, type Queryable } from './database';

/**
 * Service access: the SDK surface, OAuth bookkeeping, idempotency records and seeding reach
 * across users through here, as `service_role` (BYPASSRLS). Account reads must never import this
 * module; the lint configuration forbids it under lib/account and app/api/v1/me.
 */
export async function asService<T>(fn: (db: Queryable) => Promise<T>, engine?: Engine): Promise<T> {
  const db = engine ?? (await database());
  return db.transaction(async (tx) => {
    await tx.query("select set_config('role', 'service_role', true)");
    return fn({ query: tx.query });
  });
}
