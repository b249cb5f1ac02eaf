import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir } from './pglite-lock';

/**
 * One SQL path, two engines (ARCHITECTURE.md, Data): embedded PGlite by default, a real PostgreSQL
 * through the `postgres` driver when DATABASE_URL is set. Both return values of the same JS
 * types, so no caller can tell them apart.
 */

export type Row = Record<string, unknown>;

export interface Queryable {
  /** One statement with `$1`-style parameters. */
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Transaction extends Queryable {
  /** Several statements without parameters (migrations, `set local`). */
  exec(sql: string): Promise<void>;
}

/**
 * The key under which a `Database` holds its engine. Only lib/platform/db reads it
 * (lib/platform/db/roles.ts): eslint.config.mjs keeps every other module of the service from
 * importing this file, so the code above the platform layer holds a database it can run
 * statements on only as a role, with statements made by the `sql` tag. A registered symbol:
 * Next bundles this module into more than one chunk, and the process's database (kept on
 * globalThis, lib/process.ts) is opened by one and used by the others.
 */
export const ENGINE = Symbol.for('monetize.engine');

/** An open database as the service's code sees it: its kind, and nothing to run SQL with but the roles. */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly [ENGINE]: Engine;
}

/**
 * The transport: SQL text and parameters, for lib/db (migrations, roles), tests and scripts.
 * Every engine is also the `Database` of itself.
 */
export interface Engine extends Transaction, Database {
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs statements without parameters as one message (the simple query protocol) and answers
   * each one's rows. PostgreSQL runs such a message as one transaction: a setting made with
   * `set_config(..., true)` holds for the statements after it and ends with them, a failure
   * rolls the whole back, and it costs one round trip and no begin or commit.
   *
   * Every statement must answer rows (a `select`, or a write with `returning`): postgres.js
   * answers nothing for a statement that does not, so the answers after it would shift by one.
   * Both engines refuse such a script, so a test on either finds it. With `lastMayAnswerNothing`
   * (for a caller whose other statements answer rows by construction: lib/platform/db/roles.ts, one
   * statement after the settings), the last may answer nothing, and its answer is `[]`.
   */
  script(statements: readonly string[], options?: { lastMayAnswerNothing?: boolean }): Promise<Row[][]>;
  close(): Promise<void>;
}

// Type OIDs whose parsing we pin so both engines agree.
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMP: 1114, TIMESTAMPTZ: 1184 } as const;

/** bigint counters and numeric money arrive as JS numbers (all our values are far below 2^53). */
const toNumber = (v: string) => Number(v);
const toDate = (v: string) => new Date(v);
/** A `date` stays a 'YYYY-MM-DD' string: no time zone can shift it. */
const asIs = (v: string) => v;

export interface PgliteOptions {
  /** A directory for the data files; omitted: in memory. */
  dataDir?: string;
  /** A tarball from `dumpDataDir()`, to start from a prepared database (tests). */
  loadDataDir?: Blob | File;
}

export async function openPglite(options: PgliteOptions = {}): Promise<Engine & { dump(): Promise<Blob> }> {
  const { PGlite } = await import('@electric-sql/pglite');
  // The data directory is the server's own state, not code: keep it out of the build's file tracing.
  const dataDir = options.dataDir ? path.resolve(/*turbopackIgnore: true*/ process.cwd(), options.dataDir) : undefined;
  if (dataDir) mkdirSync(/*turbopackIgnore: true*/ dataDir, { recursive: true });
  // One process per data directory (lib/platform/db/pglite-lock.ts): a second one is refused, by name.
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create({
      dataDir,
      loadDataDir: options.loadDataDir,
      // Not PostgreSQL's default of 128 MB of shared buffers, which PGlite allocates in its
      // WebAssembly memory and clears at every open: 32 MB holds the demo database's working set,
      // and an open then takes about 100 MB less memory (265 MB to 160 MB resident, measured
      // opening the demo database alone) and some 50–100 ms less CPU.
      startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'],
      parsers: {
        [OID.INT8]: toNumber,
        [OID.NUMERIC]: toNumber,
        [OID.DATE]: asIs,
        [OID.TIMESTAMP]: toDate,
        [OID.TIMESTAMPTZ]: toDate,
      },
    });
  } catch (err) {
    release();
    throw err;
  }
  const wrap = (q: { query: typeof db.query; exec: typeof db.exec }): Transaction => ({
    async query<T extends Row>(text: string, params?: readonly unknown[]) {
      const result = await q.query<T>(text, params ? [...params] : undefined);
      return result.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const self = wrap(db);
  const engine: Engine & { dump(): Promise<Blob> } = {
    kind: 'pglite',
    get [ENGINE]() {
      return engine;
    },
    query: self.query,
    exec: self.exec,
    // PGlite is one session for the whole process; its transaction() holds an exclusive lock,
    // so two concurrent transactions never interleave (and never see each other's settings).
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    script: async (statements, options = {}) => {
      const results = await db.exec(statements.join(';\n'));
      const answering = options.lastMayAnswerNothing ? results.slice(0, -1) : results;
      if (results.length !== statements.length || answering.some((r) => r.fields.length === 0)) throw new ScriptWithoutRows();
      return results.map((r) => r.rows as Row[]);
    },
    close: async () => {
      await db.close();
      release();
    },
    dump: async () => db.dumpDataDir('none'),
  };
  return engine;
}

/** A script with a statement that answers no rows (Engine.script says why that is refused). */
export class ScriptWithoutRows extends Error {
  constructor() {
    super('Every statement sent as one message must answer rows: end a write with `returning`.');
    this.name = 'ScriptWithoutRows';
  }
}

/**
 * A statement cut off by the deadline: SQLSTATE 57014 (query_canceled), the code PostgreSQL gives
 * a statement its `statement_timeout` cancels, so every caller treats it as the database being
 * unavailable (lib/platform/db/errors.ts), never as a bug.
 */
export class DatabaseTimeout extends Error {
  readonly code = '57014';
  constructor(ms: number) {
    super(`The database did not answer within ${ms} ms; the statement was cancelled.`);
    this.name = 'DatabaseTimeout';
  }
}

export interface PostgresOptions {
  /**
   * The deadline of each statement, waiting for a connection included. The service sets it
   * (DATABASE_TIMEOUT_MS, lib/platform/db/database.ts); without it, as in the scripts that migrate, seed
   * or fill a bench database with millions of rows, a statement may take as long as it needs.
   */
  timeoutMs?: number;
}

/**
 * A real PostgreSQL through postgres.js. With `timeoutMs`, each statement has a deadline, counted
 * from the call: when the database is slow, unreachable or every connection is busy, the caller
 * is answered `DatabaseTimeout` then, and the statement is cancelled (taken out of the driver's
 * queue, or a cancel request sent to the server), so waiting is bounded and nothing piles up
 * behind a slow statement. The deadline is kept here, in the client, rather than as the server's
 * `statement_timeout`: a transaction pooler (Supabase's, port 6543) does not carry session
 * settings, and only the client can bound the wait for a connection or a lost network.
 * Migrations (`exec`) have none: they run once, at start, and may take long.
 * A lost connection is replaced on the next statement, so the service recovers by itself when
 * the database is back.
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Engine> {
  const { default: postgres } = await import('postgres');
  const { timeoutMs } = options;
  const parsed = new URL(url);
  const sql = postgres(url, {
    max: 10,
    idle_timeout: 20,
    connect_timeout: 10,
    // How long a connection that failed waits before connecting again, in seconds. postgres.js
    // counts failures across the pool and by default waits up to 20 s: after an outage of a
    // second, ten connections had failed often enough that the service stayed down 5 to 20 s
    // after the database was back. A second at most (jittered) keeps recovery within a second
    // or two, at a cost of ten connection attempts a second while the database is down.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2),
    // Supabase's transaction pooler (port 6543) cannot keep prepared statements between
    // transactions; a direct connection can.
    prepare: parsed.port !== '6543',
    onnotice: () => {},
    types: {
      // Our JSON values are JSON text already (lib/platform/db/sql.ts): sent as they are, not encoded again.
      json: { to: 114, from: [114, 3802], serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)), parse: (x: string) => JSON.parse(x) },
      int8: { to: OID.INT8, from: [OID.INT8], serialize: String, parse: toNumber },
      numeric: { to: OID.NUMERIC, from: [OID.NUMERIC], serialize: String, parse: toNumber },
      date: { to: OID.DATE, from: [OID.DATE], serialize: String, parse: asIs },
      timestamp: { to: OID.TIMESTAMP, from: [OID.TIMESTAMP], serialize: (d: Date | string) => (d instanceof Date ? d.toISOString() : d), parse: toDate },
      timestamptz: { to: OID.TIMESTAMPTZ, from: [OID.TIMESTAMPTZ], serialize: (d: Date | string) => (d instanceof Date ? d.toISOString() : d), parse: toDate },
    },
  });
  type Session = Pick<typeof sql, 'unsafe'>;
  const wrap = (s: Session): Transaction => ({
    async query<T extends Row>(text: string, params?: readonly unknown[]) {
      const rows = await within(s.unsafe(text, params ? ([...params] as never[]) : undefined), timeoutMs);
      return [...(rows as unknown as T[])];
    },
    async exec(text: string) {
      // The simple query protocol runs a list of statements in one round trip.
      await s.unsafe(text).simple();
    },
  });
  const self = wrap(sql);
  const engine: Engine = {
    kind: 'postgres',
    get [ENGINE]() {
      return engine;
    },
    query: self.query,
    exec: self.exec,
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) => {
      if (timeoutMs === undefined) return sql.begin((tx) => fn(wrap(tx))) as Promise<T>;
      // Each statement inside has its deadline; the wait for a connection to begin on has one too.
      // A transaction given up on before it began never runs `fn` when a connection frees up.
      let began = false;
      let gaveUp = false;
      const done = sql.begin((tx) => {
        if (gaveUp) throw new DatabaseTimeout(timeoutMs);
        began = true;
        return fn(wrap(tx));
      }) as Promise<T>;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          if (began) return;
          gaveUp = true;
          reject(new DatabaseTimeout(timeoutMs));
        }, timeoutMs);
        done.then(
          (value) => (clearTimeout(timer), resolve(value)),
          (err) => (clearTimeout(timer), reject(err)),
        );
      });
    },
    script: async (statements, options = {}) => {
      const results = (await within(sql.unsafe(statements.join(';\n')).simple(), timeoutMs)) as unknown as Row[] | Row[][];
      // One statement that answers rows gives its rows; several, a list of them.
      const all = results.length > 0 && Array.isArray(results[0]) ? (results as Row[][]) : [results as Row[]];
      // The last answered nothing, and the caller knows every other one answers rows.
      if (options.lastMayAnswerNothing && all.length === statements.length - 1) all.push([]);
      if (all.length !== statements.length) throw new ScriptWithoutRows();
      return all.map((rows) => [...rows]);
    },
    close: () => sql.end({ timeout: 5 }),
  };
  return engine;
}

/** A statement of postgres.js: it starts when awaited, and can be cancelled. */
interface Pending<T> extends PromiseLike<T> {
  cancel(): unknown;
}

/**
 * `pending`'s answer, or `DatabaseTimeout` after `ms`, when the statement is also cancelled:
 * postgres.js takes a statement that has not been sent out of its queue, and asks the server to
 * cancel one that is running (best effort: if the server cannot be reached, the connection's own
 * failure ends it). A cancel request names a connection, not a statement (PostgreSQL's protocol,
 * 55.2.8): one that lands after its statement ended cuts the connection's next statement instead,
 * which then fails as "unavailable" too, and its client retries.
 */
function within<T>(pending: Pending<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return Promise.resolve(pending);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new DatabaseTimeout(ms));
      pending.cancel();
    }, ms);
    pending.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err) => (clearTimeout(timer), reject(err)),
    );
  });
}
