import { env } from '../env';
import { log } from '../log';
import { openPglite, openPostgres, type Engine, type Queryable, type Row } from './engine';
import { migrate } from './migrate';
import { seed } from './seed';

export type { Engine, Queryable, Transaction, Row } from './engine';

/**
 * The database the environment names: PGlite under PGLITE_DATA_DIR, or DATABASE_URL; migrated
 * on open, and the embedded one seeded with the demo accounts the first time. The process opens
 * it once (lib/services.ts).
 */
export async function openDatabase(): Promise<Engine> {
  const { DATABASE_URL, DATABASE_TIMEOUT_MS, PGLITE_DATA_DIR } = env();
  const started = Date.now();
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL, { timeoutMs: DATABASE_TIMEOUT_MS }) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  const applied = await migrate(engine);
  // A real PostgreSQL is seeded on purpose (`npm run db:seed`); the embedded one on first start.
  const seeded = engine.kind === 'pglite' ? await seed(engine) : false;
  log.info('database ready', {
    engine: engine.kind,
    migrations_applied: applied.length,
    seeded,
    ms: Date.now() - started,
  });
  return engine;
}

/** The claims of the request, and the role `authenticated`, for the rest of the transaction only. */
const SET_USER = "select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)";

export interface UserClaims {
  /** The user's id (`auth.uid()`). */
  sub: string;
  /** Space-separated scopes of the token the request came with. */
  scope?: string;
  client_id?: string;
}

/**
 * Runs `fn` as the given user: a transaction whose `request.jwt.claims` carry the user and whose
 * role is `authenticated`, so RLS policies decide what is visible (ARCHITECTURE.md, Data).
 * Both settings are transaction-local (`set_config(..., true)`): PGlite is one session for the
 * whole process, and nothing may leak into the next transaction.
 */
export async function asUser<T>(db: Engine, claims: UserClaims, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(SET_USER, [JSON.stringify({ ...claims, role: 'authenticated' })]);
    return fn({ query: tx.query });
  });
}

/**
 * One statement without parameters run as the given user, as `asUser` runs it, sent with the
 * claims as one message (`Engine.script`): one round trip, no begin or commit. The path of every
 * account read, where the round trips to the database were most of the cost.
 */
export async function readAsUser<T extends Row>(db: Engine, claims: UserClaims, text: string): Promise<T[]> {
  const results = await scriptAs(db, 'authenticated', JSON.stringify({ ...claims, role: 'authenticated' }), text);
  return results[results.length - 1] as T[];
}

/**
 * Statements without parameters (`;`-separated) run as `role`, with `claims` (a JSON text) as
 * `request.jwt.claims` when given, in one message (`Engine.script`): the settings hold for the
 * message's implicit transaction only. Answers each statement's rows, the settings' left out.
 * The one-round-trip path of account reads (`readAsUser`) and of the SDK surface (lib/sdk/access.ts).
 */
export async function scriptAs(db: Engine, role: 'authenticated' | 'anon' | 'sdk', claims: string | null, statements: string): Promise<Row[][]> {
  const claimed = claims === null ? '' : `set_config('request.jwt.claims', ${jsonLiteral(claims)}, true), `;
  const results = await db.script(`select ${claimed}set_config('role', '${role}', true); ${statements}`);
  return results.slice(1);
}

/**
 * A JSON text as a dollar-quoted literal (PostgreSQL 4.1.2.4: nothing inside is an escape). JSON
 * has `$` only inside strings, where `\u0024` means the same, so the literal cannot end early.
 */
export function jsonLiteral(json: string): string {
  return `$$${json.replaceAll('$', '\\u0024')}$$`;
}

/** Public data (pricing) read as `anon`: RLS applies, and no user is named. */
export async function asAnonymous<T>(db: Engine, fn: (db: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query("select set_config('role', 'anon', true)");
    return fn({ query: tx.query });
  });
}
