import { jsonLiteral, scriptAs, type Engine, type Row } from '../db/database';

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

/**
 * `runAsApp` on the services' database. A failure of the database is passed on: the kernel
 * answers it 503 with `Retry-After` (lib/http/kernel.ts), on this surface as on every other.
 */
export async function queryAsApp(database: () => Promise<Engine>, app: AppClaims | { appId: string }, statements: string): Promise<Row[][]> {
  return runAsApp(await database(), app, statements);
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
