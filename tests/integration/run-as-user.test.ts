import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLiteral, readAsUser, type Engine } from '@/lib/db/database';
import { testEngines } from '../helpers/db';

/**
 * readAsUser sends the claims inside its SQL text (one message, no parameters): whatever the
 * claims hold, they arrive as they were sent, for that statement only, and never as SQL.
 */
describe.each(testEngines())('readAsUser on $name', (engine) => {
  let db: Engine;
  beforeAll(async () => {
    db = await engine.open();
  });
  afterAll(async () => {
    await db?.close();
  });

  const hostile = ["it's", 'back\\slash and "quotes"', '$$; drop table public.users; --', '$tag$ $ $$ $$$', '\u0000\n\t\u2028', 'ends with $'];

  it.each(hostile)('passes %j through as a claim, and the statement runs as authenticated', async (value) => {
    const claims = { sub: '00000000-0000-0000-0000-000000000001', client_id: value, scope: value };
    const [row] = await readAsUser<{ claims: string; role: string }>(
      db,
      claims,
      "select current_setting('request.jwt.claims') as claims, current_user as role",
    );
    expect(JSON.parse(row!.claims)).toEqual({ ...claims, role: 'authenticated' });
    expect(row!.role).toBe('authenticated');
  });

  it('leaves nothing set for the statements after it', async () => {
    await readAsUser(db, { sub: '00000000-0000-0000-0000-000000000001' }, 'select 1');
    const [row] = await db.query<{ claims: string | null; role: string }>("select current_setting('request.jwt.claims', true) as claims, current_user as role");
    expect(row!.claims ?? '').toBe('');
    expect(row!.role).not.toBe('authenticated');
  });

  it('writes a literal with no dollar sign inside', () => {
    expect(jsonLiteral(JSON.stringify({ a: '$$x$' }))).toBe('$${"a":"\\u0024\\u0024x\\u0024"}$$');
  });
});
