import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z, ZodError } from 'zod';
import type { Engine } from '@/lib/platform/db/engine';
import { as } from '@/lib/platform/db/roles';
import { sql } from '@/lib/platform/db/sql';
import { demoUsers, testEngines } from '../helpers/db';

/**
 * Rows checked by the schema that types them (lib/platform/db/roles.ts): `query(statement, row)`
 * parses every row it answers, in a session's one message and in a transaction alike, so a column
 * renamed, retyped or left out in SQL is an error at the statement that read it, never a value of
 * the wrong kind passed on under a type that says otherwise.
 */
describe.each(testEngines())('query(statement, row) on $name', (engine) => {
  let db: Engine;
  let demo: string;
  beforeAll(async () => {
    db = await engine.open();
    demo = (await demoUsers(db)).demo;
  });
  afterAll(async () => {
    await db?.close();
  });

  const user = z.object({ id: z.string().uuid(), email: z.string().email(), created_at: z.date() });
  const read = sql`select id, email, created_at from public.users`;

  it('answers the rows as the schema types them, one message or a transaction', async () => {
    const session = as(db, 'authenticated', { sub: demo });
    const [one] = await session.query(read, user);
    expect(one).toEqual({ id: demo, email: expect.any(String), created_at: expect.any(Date) });
    const [again] = await session.transaction((tx) => tx.query(read, user));
    expect(again).toEqual(one);
  });

  it('refuses a row that is not what the schema says, naming the column', async () => {
    const session = as(db, 'authenticated', { sub: demo });
    const wrong = user.extend({ created_at: z.string() });
    await expect(session.query(read, wrong)).rejects.toThrow(ZodError);
    await expect(session.transaction((tx) => tx.query(sql`select id, email from public.users`, user))).rejects.toThrow(/created_at/);
  });
});
