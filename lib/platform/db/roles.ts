import type { z } from 'zod';
import { ENGINE, type Database, type Engine, type Row } from './engine';
import { sql, toBound, toLiteral, type Sql } from './sql';

export type { Database, Row } from './engine';

/**
 * The one way to the database: every statement runs as a role, through `as(db, role, claims)`
 * (or `asService`, for the few files eslint.config.mjs allows it), and row-level security
 * decides what that role sees.
 *
 * - `authenticated`: a user (account reads, the console), `claims.sub` being `auth.uid()`;
 * - `sdk`: an app's SDK requests, `claims.app_id` (and the owner, `user_id`) naming the app;
 * - `anon`: nobody (public pricing, the SDK key lookup, where knowing the key authorizes).
 *
 * The role and the claims are set with `set_config(…, true)`, which lasts until the transaction
 * ends: PGlite is one session for the whole process, and nothing may leak into the next
 * statement (ARCHITECTURE.md, Data).
 */

export type Role = 'authenticated' | 'sdk' | 'anon';

/** What `request.jwt.claims` holds for each role (`auth.uid()`, `public.sdk_app_id()`, `sdk_user_id()`). */
export interface RoleClaims {
  /** `aal: 'aal2'`: signed in with a second factor (staff, lib/identity/auth/staff.ts; public.is_staff reads it). */
  authenticated: { sub: string; scope?: string; client_id?: string; aal?: 'aal2' };
  sdk: { app_id: string; user_id?: string };
  anon: undefined;
}

/** Statements run as one role. */
export interface Session {
  /**
   * One statement, sent with the settings as one message: one round trip, no begin or commit
   * (PostgreSQL runs a message of several statements as one transaction). Answers its rows.
   */
  query<T extends Row = Row>(statement: Sql): Promise<T[]>;
  /** The same, each row checked by `row` and typed by it: what the database answered is what the code believes. */
  query<S extends z.ZodType>(statement: Sql, row: S): Promise<z.output<S>[]>;
  /**
   * Several statements in one message, as `query` sends one; answers each one's rows. Each must
   * answer rows (a write ends with `returning`; Engine.script in lib/platform/db/engine.ts says why).
   */
  script(...statements: Sql[]): Promise<Row[][]>;
  /** A transaction: for work that reads, decides in code, and writes. Values are bound as parameters. */
  transaction<T>(fn: (tx: Statements) => Promise<T>): Promise<T>;
}

/** Statements inside a transaction. */
export interface Statements {
  query<T extends Row = Row>(statement: Sql): Promise<T[]>;
  query<S extends z.ZodType>(statement: Sql, row: S): Promise<z.output<S>[]>;
}

/** Rows through their schema, when the caller gave one. */
function checked(rows: Row[], row: z.ZodType | undefined): unknown[] {
  return row ? rows.map((r) => row.parse(r)) : rows;
}

/** Runs statements on `db` as `role`, with `claims` (module comment). */
export function as<R extends Role>(db: Database, role: R, ...claims: RoleClaims[R] extends undefined ? [] : [RoleClaims[R]]): Session {
  return session(db, role, claims[0]);
}

/**
 * Runs statements as `service_role`, which bypasses row-level security: OAuth bookkeeping,
 * idempotency records, the service's own secrets, the roll-up and the demo seed. Only the files
 * listed in eslint.config.mjs ("service role") may import it; everything a user or an app asks
 * for runs as them instead.
 */
export function asService(db: Database): Session {
  return session(db, 'service_role', undefined);
}

function session(db: Database, role: Role | 'service_role', claims: object | undefined): Session {
  const engine: Engine = db[ENGINE];
  const settings = claims
    ? sql`select set_config('request.jwt.claims', ${JSON.stringify({ ...claims, role })}, true), set_config('role', ${role}, true)`
    : sql`select set_config('role', ${role}, true)`;
  const script = async (statements: Sql[], options?: { lastMayAnswerNothing: boolean }): Promise<Row[][]> => {
    const results = await engine.script([settings, ...statements].map(toLiteral), options);
    return results.slice(1);
  };
  return {
    async query(statement: Sql, row?: z.ZodType) {
      // The settings answer a row, so the statement may answer none.
      const [rows] = await script([statement], { lastMayAnswerNothing: true });
      return checked(rows ?? [], row) as never;
    },
    script: (...statements) => script(statements),
    transaction: (fn) =>
      engine.transaction(async (tx) => {
        const run = async (statement: Sql, row?: z.ZodType) => {
          const { text, params } = toBound(statement);
          return checked(await tx.query(text, params), row) as never;
        };
        await run(settings);
        return fn({ query: run });
      }),
  };
}
