import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, NO_REFUSALS, NOTHING, UnknownRefusal, type Refusals } from './call';
import { sql } from '../db/sql';

/** A session whose one statement answers `rows`, and which keeps what it was sent. */
function answering(...rows: Record<string, unknown>[]) {
  const sent: string[] = [];
  return {
    sent,
    async query<T>(statement: { chunks: readonly string[] }): Promise<T[]> {
      sent.push(statement.chunks.join('$'));
      return rows as T[];
    },
  };
}

type MarkCode = 'not_found' | 'invalid_transition' | 'below_minimum';
const MARK: Refusals<MarkCode> = {
  not_found: 'That payout does not exist.',
  invalid_transition: 'That payout cannot move to this status from where it is.',
  below_minimum: (a) => `Only ${String(a.available_micro)}.`,
};
const statement = sql`select public.staff_payout_mark(${'id'}::uuid, ${'paid'}) as v`;
const status = z.object({ status: z.string() });

describe('call', () => {
  it('answers the success, checked by its schema (and without `ok`)', async () => {
    const session = answering({ v: { ok: true, status: 'paid', extra: 1 } });
    expect(await call(session, statement, status, MARK)).toEqual({ ok: true, value: { status: 'paid' } });
    expect(session.sent).toEqual(['select public.staff_payout_mark($::uuid, $) as v']);
  });

  it('answers a refusal in its words, made from its facts when the message is a function', async () => {
    expect(await call(answering({ v: { ok: false, error: 'not_found', status: null } }), statement, status, MARK)).toEqual({
      ok: false,
      error: 'That payout does not exist.',
    });
    expect(await call(answering({ answer: { ok: false, error: 'below_minimum', available_micro: 7 } }), statement, status, MARK)).toEqual({
      ok: false,
      error: 'Only 7.',
    });
  });

  it('checks and types the facts when a schema is given, and reads the code under `reason` when told', async () => {
    const facts = z.object({ available_micro: z.coerce.number() });
    const table: Refusals<'below_minimum', z.infer<typeof facts>> = { below_minimum: (a) => `$${(a.available_micro / 1e6).toFixed(2)}` };
    const session = answering({ v: { ok: false, reason: 'below_minimum', available_micro: '1230000' } });
    expect(await call(session, statement, status, table, { code: 'reason', facts })).toEqual({ ok: false, error: '$1.23' });
  });

  it('throws on a code the table does not list, on a refusal with no code, and on a code that is only a property of every object', async () => {
    for (const reply of [{ ok: false, error: 'reason_required' }, { ok: false }, { ok: false, reason: 'not_found' }, { ok: false, error: 'toString' }]) {
      const attempt = call(answering({ v: reply }), statement, status, MARK);
      await expect(attempt).rejects.toBeInstanceOf(UnknownRefusal);
      await expect(call(answering({ v: reply }), statement, status, MARK)).rejects.toThrow(/^public\.staff_payout_mark answered what its caller does not know/);
    }
    await expect(call(answering({ v: { ok: false, error: 'anything' } }), statement, NOTHING, NO_REFUSALS)).rejects.toBeInstanceOf(UnknownRefusal);
  });

  it('throws on an answer that is not one `{ok: …}` value, and on a success its schema refuses', async () => {
    for (const rows of [[], [{ v: null }], [{ v: 'ok' }], [{ v: { ok: 'yes' } }], [{ a: { ok: true }, b: 1 }]]) {
      await expect(call(answering(...rows), statement, NOTHING, MARK)).rejects.toBeInstanceOf(UnknownRefusal);
    }
    await expect(call(answering({ v: { ok: true } }), statement, status, MARK)).rejects.toThrow(z.ZodError);
    expect(await call(answering({ v: { ok: true, closed: 2 } }), statement, NOTHING, NO_REFUSALS)).toEqual({ ok: true, value: undefined });
  });

  it('asks, at compile time, for a message for every code and for no other', () => {
    // @ts-expect-error: `below_minimum` has no message.
    const missing: Refusals<MarkCode> = { not_found: 'a', invalid_transition: 'b' };
    // @ts-expect-error: `reversed` is not a code of this function.
    const extra: Refusals<'not_found'> = { not_found: 'a', reversed: 'b' };
    expect([missing, extra]).toHaveLength(2);
  });
});
