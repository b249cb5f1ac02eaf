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

export interface Engine extends Transaction {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Runs statements without parameters, `;`-separated, as one message (the simple query
   * protocol) and answers each one's rows. PostgreSQL runs such a message as one transaction:
   * a setting made with `set_config(..., true)` holds for the statements after it and ends with
   * them, a failure rolls the whole back, and it costs one round trip and no begin or commit.
   */
  script(text: string): Promise<Row[][]>;
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
  // One process per data directory (lib/db/pglite-lock.ts): a second one is refused, by name.
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  let db: InstanceType<typeof PGlite>;
  try {
    db = await PGlite.create({
      dataDir,
      loadDataDir: options.loadDataDir,
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
  return {
    kind: 'pglite',
    query: self.query,
    exec: self.exec,
    // PGlite is one session for the whole process; its transaction() holds an exclusive lock,
    // so two concurrent transactions never interleave (and never see each other's settings).
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    script: async (text) => (await db.exec(text)).map((r) => r.rows as Row[]),
    close: async () => {
      await db.close();
      release();
    },
    dump: async () => db.dumpDataDir('none'),
  };
}

export async function openPostgres(url: string): Promise<Engine> {
  const { default: postgres } = await import('postgres');
  const parsed = new URL(url);
  const sql = postgres(url, {
    max: 10,
    idle_timeout: 20,
    connect_timeout: 10,
    // Supabase's transaction pooler (port 6543) cannot keep prepared statements between
    // transactions; a direct connection can.
    prepare: parsed.port !== '6543',
    onnotice: () => {},
    types: {
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
      const rows = await s.unsafe(text, params ? ([...params] as never[]) : undefined);
      return [...(rows as unknown as T[])];
    },
    async exec(text: string) {
      // The simple query protocol runs a list of statements in one round trip.
      await s.unsafe(text).simple();
    },
  });
  const self = wrap(sql);
  return {
    kind: 'postgres',
    query: self.query,
    exec: self.exec,
    transaction: async <T>(fn: (tx: Transaction) => Promise<T>) => (await sql.begin((tx) => fn(wrap(tx)))) as T,
    script: async (text) => {
      const results = (await sql.unsafe(text).simple()) as unknown as Row[] | Row[][];
      // One statement answers its rows; several answer a list of them.
      const all = results.length > 0 && Array.isArray(results[0]) ? (results as Row[][]) : [results as Row[]];
      return all.map((rows) => [...rows]);
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
