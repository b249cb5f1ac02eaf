import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { ZodError, z } from 'zod';
import { isDatabaseError } from './errors';
import { openPglite, type Engine } from './engine';

/** The error `fn` rejects with (the test fails if it resolves). */
async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseError: PGlite', () => {
  let lite: Engine;
  beforeAll(async () => {
    lite = await openPglite();
  });
  afterAll(async () => {
    await lite?.close();
  });

  it('does not count a statement of ours the engine rejects (42601 syntax error)', async () => {
    const err = await failure(() => lite.query('selec 1'));
    expect(err).toMatchObject({ code: '42601', severity: 'ERROR' });
    expect(isDatabaseError(err)).toBe(false);
  });

  it('does not count a data exception raised inside a transaction (22012), as the transaction rethrows it', async () => {
    const err = await failure(() => lite.transaction((tx) => tx.query('select 1 / 0')));
    expect(err).toMatchObject({ code: '22012', severity: 'ERROR' });
    expect(isDatabaseError(err)).toBe(false);
  });

  // No timeout here: PGlite accepts `statement_timeout` but never enforces it (`pg_sleep(1)`
  // under a 1 ms timeout completes), so the server-side timeouts are tested on PostgreSQL only.

  it('recognises a closed instance', async () => {
    const closed = await openPglite();
    await closed.close();
    const err = await failure(() => closed.transaction((tx) => tx.query('select 1')));
    expect((err as Error).message).toBe('PGlite is closed');
    expect(isDatabaseError(err)).toBe(true);
  });
});

describe('isDatabaseError: postgres.js', () => {
  it('recognises a refused connection', async () => {
    // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
    const sql = postgres('postgres://postgres@127.0.0.1:1/postgres', { connect_timeout: 5, max: 1, onnotice: () => {} });
    try {
      const err = await failure(() => sql.unsafe('select 1'));
      expect(err).toMatchObject({ code: 'ECONNREFUSED' });
      expect(isDatabaseError(err)).toBe(true);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('recognises a query on a pool that has been ended', async () => {
    const sql = postgres('postgres://postgres@127.0.0.1:1/postgres', { max: 1 });
    await sql.end();
    const err = await failure(() => sql.unsafe('select 1'));
    expect(err).toMatchObject({ code: 'CONNECTION_ENDED' });
    expect(isDatabaseError(err)).toBe(true);
  });

  it('recognises a cancelled query that postgres.js raises itself, without a severity', () => {
    // postgres.js raises this one itself, as a plain Error, when it cancels a queued query.
    expect(isDatabaseError(Object.assign(new Error('57014: canceling statement due to user request'), { code: '57014' }))).toBe(true);
  });

  // Only where a PostgreSQL server is given (CI always gives one): PGlite has no such errors to raise.
  if (process.env.TEST_DATABASE_URL)
    describe('errors the server raised (PostgreSQL)', () => {
      const open = () => postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });

      it('does not count a data exception (22012) or a syntax error (42601) in our own statement', async () => {
        const sql = open();
        try {
          for (const [statement, code] of [
            ['select 1 / 0', '22012'],
            ['selec 1', '42601'],
          ] as const) {
            const err = await failure(() => sql.unsafe(statement));
            expect(err).toBeInstanceOf(postgres.PostgresError);
            expect(err).toMatchObject({ code, severity: 'ERROR' });
            expect(isDatabaseError(err)).toBe(false);
          }
        } finally {
          await sql.end({ timeout: 1 });
        }
      });

      it('recognises a statement cancelled by statement_timeout (57014)', async () => {
        const sql = open();
        try {
          const err = await failure(() =>
            sql.begin(async (tx) => {
              await tx.unsafe('set local statement_timeout = 1');
              await tx.unsafe('select pg_sleep(1)');
            }),
          );
          expect(err).toBeInstanceOf(postgres.PostgresError);
          expect(err).toMatchObject({ code: '57014', severity: 'ERROR' });
          expect(isDatabaseError(err)).toBe(true);
        } finally {
          await sql.end({ timeout: 1 });
        }
      });

      it('recognises a lock not obtained within lock_timeout (55P03)', async () => {
        // A table of its own, so that no other test run on the same server waits on the lock.
        const table = `is_database_error_${process.pid}_${randomBytes(4).toString('hex')}`;
        const holder = open();
        const waiter = open();
        try {
          await holder.unsafe(`create table ${table} (id int)`);
          let locked!: () => void;
          let release!: () => void;
          const isLocked = new Promise<void>((resolve) => (locked = resolve));
          const released = new Promise<void>((resolve) => (release = resolve));
          const holding = holder.begin(async (tx) => {
            await tx.unsafe(`lock table ${table} in access exclusive mode`);
            locked();
            await released;
          });
          await isLocked;
          try {
            const err = await failure(() =>
              waiter.begin(async (tx) => {
                await tx.unsafe("set local lock_timeout = '10ms'");
                await tx.unsafe(`select * from ${table}`);
              }),
            );
            expect(err).toBeInstanceOf(postgres.PostgresError);
            expect(err).toMatchObject({ code: '55P03', severity: 'ERROR' });
            expect(isDatabaseError(err)).toBe(true);
          } finally {
            release();
            await holding;
          }
        } finally {
          await holder.unsafe(`drop table if exists ${table}`).catch(() => {});
          await Promise.all([holder.end({ timeout: 1 }), waiter.end({ timeout: 1 })]);
        }
      });
    });

  it('does not count the driver’s own refusals of a malformed call', async () => {
    const sql = postgres('postgres://postgres@127.0.0.1:1/postgres', { max: 1 });
    try {
      // A query string passed as an ordinary argument instead of as a tagged template.
      const err = await failure(async () => await (sql('select 1') as unknown as Promise<unknown>));
      expect(err).toMatchObject({ code: 'NOT_TAGGED_CALL' });
      expect(isDatabaseError(err)).toBe(false);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});

describe('isDatabaseError: a server error, by the class of its SQLSTATE', () => {
  const serverError = (code: string) => new postgres.PostgresError({ message: `SQLSTATE ${code}`, code, severity: 'ERROR' } as never);

  it.each([
    ['08006', 'connection_failure'],
    ['40001', 'serialization_failure'],
    ['40P01', 'deadlock_detected'],
    ['53300', 'too_many_connections'],
    ['53100', 'disk_full'],
    ['55P03', 'lock_not_available'],
    ['57014', 'query_canceled'],
    ['57P01', 'admin_shutdown'],
    ['57P03', 'cannot_connect_now'],
    ['58030', 'io_error'],
    ['XX000', 'internal_error'],
    ['XX001', 'data_corrupted'],
  ])('counts %s (%s): the database is unavailable or failing', (code) => {
    expect(isDatabaseError(serverError(code))).toBe(true);
  });

  it.each([
    ['42601', 'syntax_error'],
    ['42501', 'insufficient_privilege'],
    ['42P01', 'undefined_table'],
    ['42703', 'undefined_column'],
    ['22012', 'division_by_zero'],
    ['22P02', 'invalid_text_representation'],
    ['23505', 'unique_violation'],
    ['23503', 'foreign_key_violation'],
    ['25P02', 'in_failed_sql_transaction'],
    ['P0001', 'raise_exception'],
  ])('does not count %s (%s): our statement or schema is wrong', (code) => {
    expect(isDatabaseError(serverError(code))).toBe(false);
  });

  it('counts the same classes whatever the severity the server gave', () => {
    expect(isDatabaseError(Object.assign(new Error('x'), { code: '57P01', severity: 'FATAL' }))).toBe(true);
    expect(isDatabaseError(Object.assign(new Error('x'), { code: '42501', severity: 'FATAL' }))).toBe(false);
  });
});

describe('isDatabaseError: everything else', () => {
  it('does not count a bug in our own code', () => {
    let typeError: unknown;
    try {
      (undefined as unknown as { x: number }).x.toFixed();
    } catch (err) {
      typeError = err;
    }
    expect(typeError).toBeInstanceOf(TypeError);
    expect(isDatabaseError(typeError)).toBe(false);
    expect(isDatabaseError(z.number().safeParse('1').error)).toBe(false);
    expect(z.number().safeParse('1').error).toBeInstanceOf(ZodError);
  });

  it('does not count an error that merely says "connection" in its message', () => {
    expect(isDatabaseError(new Error('connection refused (simulated outage)'))).toBe(false);
  });

  it('does not count a SQLSTATE-looking code outside the connection classes without a severity', () => {
    expect(isDatabaseError(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
    // Node's own errno codes can be five characters long too.
    expect(isDatabaseError(Object.assign(new Error('x'), { code: 'EPERM' }))).toBe(false);
    // A server class that counts only with a severity: no driver raises it on its own.
    expect(isDatabaseError(Object.assign(new Error('x'), { code: '40001' }))).toBe(false);
  });

  it('counts a broken pipe, whose errno code has the shape of a SQLSTATE', () => {
    expect(isDatabaseError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
  });

  it('does not count values that are not errors', () => {
    for (const v of [undefined, null, 'ECONNREFUSED', { code: 'ECONNREFUSED' }, { code: '42601', severity: 'ERROR' }]) {
      expect(isDatabaseError(v)).toBe(false);
    }
  });
});
