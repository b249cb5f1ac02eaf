import { jsonLiteral, scriptAs, type Engine, type Row } from '../db/database';
import { isDatabaseError } from '../db/errors';
import { ApiError } from '../http/errors';
import { describeError, log } from '../log';

/**
 * How the SDK surface reaches the database: as the role `sdk`, with the app of the request in
 * `request.jwt.claims` (migration 20261125000000). Its row-level security policies let it read
 * and write its own app's placements, decisions, events, consents and data, and nothing of any
 * other app, whatever a statement asks for. Never as the service.
 *
 * The claims and the statements go as one message (`Engine.script`): one round trip and no
 * begin or commit, which is most of what an ad request costs. Values go into the statements as
 * literals made by `sqlText` (the simple protocol has no parameters); every one of them has been
 * validated by the route's schema first.
 */

/** The app an SDK request acts for, and its owner (whose rows its writes are). */
export interface AppClaims {
  appId: string;
  userId: string;
}

/** The claims of the app's SDK role, as `request.jwt.claims` holds them (`public.sdk_app_id()`, `sdk_user_id()`). */
export function sdkClaims(app: AppClaims | { appId: string }): string {
  return JSON.stringify({ role: 'sdk', app_id: app.appId, ...('userId' in app ? { user_id: app.userId } : {}) });
}

/** Runs `statements` (`;`-separated) as the app's SDK role; answers each statement's rows. */
export function runAsApp(db: Engine, app: AppClaims | { appId: string }, statements: string): Promise<Row[][]> {
  return scriptAs(db, 'sdk', sdkClaims(app), statements);
}

/** The database's failures are "retry later" (503, `Retry-After`); anything else is a bug, and a 500. */
export async function orUnavailable<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isDatabaseError(err)) throw err;
    log.error(`${what} failed`, describeError(err));
    throw new ApiError('unavailable', 'The SDK service cannot reach its database right now; retry later.', { 'Retry-After': '5' });
  }
}

/** `runAsApp` on the services' database, a failure of either being the 503 of `orUnavailable`. */
export function queryAsApp(database: () => Promise<Engine>, app: AppClaims | { appId: string }, statements: string, what: string): Promise<Row[][]> {
  return orUnavailable(what, async () => runAsApp(await database(), app, statements));
}

/**
 * A string as an escape-string literal (PostgreSQL 4.1.2.2): `E'…'` with `\` and `'` escaped,
 * whatever `standard_conforming_strings` says. A NUL cannot be in a text value, so it is refused.
 */
export function sqlText(value: string | null | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (value.includes('\0')) throw new Error('a SQL text cannot hold NUL');
  return `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A list of strings as a `text[]` literal expression. */
export function sqlTextArray(values: readonly string[]): string {
  return values.length === 0 ? "'{}'::text[]" : `array[${values.map(sqlText).join(', ')}]::text[]`;
}

/** A JSON value as a `jsonb` literal expression. */
export function sqlJson(value: unknown): string {
  return `${jsonLiteral(JSON.stringify(value))}::jsonb`;
}

/** The rows of one statement's answer (`runAsApp` answers one list per statement). */
export function rowsOf<T extends Row>(results: Row[][], index: number): T[] {
  return (results[index] ?? []) as T[];
}
