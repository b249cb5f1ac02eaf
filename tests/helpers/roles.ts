import type { Engine, Queryable, Row } from '../../lib/platform/db/engine';
import { sql, toLiteral } from '../../lib/platform/db/sql';

/**
 * Raw SQL text run as a role, for tests only: setting up data as the service, and probing
 * row-level security with statements the `sql` tag would not let a test write (a table or column
 * named by a variable, a statement taken from a list). The service's code runs as a role through
 * lib/platform/db/roles.ts (`as`, `asService`), with statements made by the `sql` tag; these helpers give a
 * test the same settings on an `Engine`, with SQL text and `$1` parameters.
 *
 * The settings are those of lib/platform/db/roles.ts: `request.jwt.claims` (a JSON text that also names the
 * role) and `role`, both `set_config(…, true)`, so they end with the transaction and nothing leaks
 * into the next statement (PGlite is one session for the whole process).
 */

export type TestRole = 'authenticated' | 'sdk' | 'anon' | 'service_role';

/** The claims of a signed-in user (`auth.uid()` is `sub`). */
export interface UserClaims {
  sub: string;
  scope?: string;
  client_id?: string;
  /** `aal2`: signed in with a second factor (staff; public.is_staff). */
  aal?: string;
}

/** The app an SDK request acts for, and its owner when known. */
export interface AppClaims {
  appId: string;
  userId?: string;
}

/** The claims of the SDK role, as `request.jwt.claims` holds them (`public.sdk_app_id()`, `sdk_user_id()`). */
export function sdkClaims(app: AppClaims): { app_id: string; user_id?: string } {
  return { app_id: app.appId, ...(app.userId === undefined ? {} : { user_id: app.userId }) };
}

/** `request.jwt.claims` for `role`: the claims with the role added, as PostgREST and lib/platform/db/roles.ts write them. */
export function claimsJson(role: TestRole, claims: object): string {
  return JSON.stringify({ ...claims, role });
}

/**
 * Runs `fn` in one transaction as `role`: the first statement sets the claims (when given) and the
 * role, transaction-local; `fn` gets the transaction to send raw SQL text with parameters.
 * Commits when `fn` resolves, rolls back when it throws.
 */
export function runAs<T>(engine: Engine, role: TestRole, claims: object | undefined, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return engine.transaction(async (tx) => {
    if (claims) await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', $2, true)", [claimsJson(role, claims), role]);
    else await tx.query("select set_config('role', $1, true)", [role]);
    return fn({ query: tx.query });
  });
}

/** As the service (`service_role`, which bypasses row-level security): test data set up or read across users. */
export function rawAsService<T>(engine: Engine, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return runAs(engine, 'service_role', undefined, fn);
}

/** As a signed-in user: the role `authenticated`, with the user's claims. */
export function rawAsUser<T>(engine: Engine, claims: UserClaims, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return runAs(engine, 'authenticated', claims, fn);
}

/** As nobody: the role `anon`, without claims. */
export function rawAsAnon<T>(engine: Engine, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return runAs(engine, 'anon', undefined, fn);
}

/**
 * Statements without parameters (each answering rows) run as `role` in ONE message
 * (`Engine.script`, the simple query protocol), after the settings, as lib/platform/db/roles.ts sends a
 * session's statements: PostgreSQL runs the message as one transaction, so the settings hold for
 * it only and a failure rolls the whole back. Answers each statement's rows, the settings' left out.
 */
export async function rawScriptAs(engine: Engine, role: TestRole, claims: object | undefined, statements: readonly string[]): Promise<Row[][]> {
  const settings = claims
    ? sql`select set_config('request.jwt.claims', ${claimsJson(role, claims)}, true), set_config('role', ${role}, true)`
    : sql`select set_config('role', ${role}, true)`;
  const results = await engine.script([toLiteral(settings), ...statements]);
  return results.slice(1);
}
