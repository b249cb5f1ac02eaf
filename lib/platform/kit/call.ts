import { z } from 'zod';
import type { Statements } from '../db/roles';
import type { Sql } from '../db/sql';
import { ok, refused, type Result } from './result';

/**
 * The one way to call a SQL function that judges a request and answers JSON: `{ok: true, …}`
 * with what it did, or `{ok: false, error: '<code>', …}` with why not and the facts the reason
 * needs (`minimum_micro`, `field`…). The database decides; the caller only says its answer in
 * words, and every caller says it the same way:
 *
 *     const PAYOUT_MARK: Refusals<'not_found' | 'invalid_transition'> = { not_found: '…', invalid_transition: '…' };
 *     return call(asStaff(db, staff), sql`select public.staff_payout_mark(…)`, z.object({ status: z.string() }), PAYOUT_MARK);
 *
 * The answer is the statement's one value (one row, one column, whatever its name). A success is
 * checked against the caller's schema and is the `Result`'s value; a refusal is its code's
 * message from the function's table of refusals, which lists every code the function can answer
 * (its type says which, so the compiler asks for each message). A code the table does not know,
 * or an answer of another shape, is a bug of ours, not the person's: it throws
 * (`UnknownRefusal`), never a vague "refused" that hides it.
 */

/** What a refusal carries besides its code, as the function answered it. */
export type Facts = Readonly<Record<string, unknown>>;

/** What the person reads for one refusal: a sentence, or one made from the refusal's facts. */
export type Message<F = Facts> = string | ((facts: F) => string);

/**
 * A function's refusals: each code it can answer, with its message. Declared with the function's
 * codes (`Refusals<'not_found' | 'invalid_transition'>`), it must have a message for each of them
 * and no other.
 */
export type Refusals<Code extends string, F = Facts> = { readonly [C in Code]: Message<F> };

/** The table of a function that never refuses (it answers `ok: true` or raises). */
export const NO_REFUSALS: Refusals<never> = {};

/** The success schema of a function whose success says nothing more than `ok: true`. */
export const NOTHING = z.unknown().transform((): undefined => undefined);

/** Which key of a refusal names its code: `error`, or `reason` (public.payout_request answers that). */
type CodeKey = 'error' | 'reason';

/** A function answered a refusal its table does not list, or an answer that is not `{ok: …}`: the table or the function is wrong. */
export class UnknownRefusal extends Error {
  constructor(
    readonly fn: string,
    readonly answer: unknown,
  ) {
    super(`${fn} answered what its caller does not know: ${JSON.stringify(answer)}`);
    this.name = 'UnknownRefusal';
  }
}

/** Calls the SQL function of `statement` as `session` and says its answer (module comment). */
export async function call<T, Code extends string>(
  session: Pick<Statements, 'query'>,
  statement: Sql,
  answer: z.ZodType<T>,
  refusals: Refusals<Code>,
  options?: { code?: CodeKey },
): Promise<Result<T>>;
/** The same, with the refusal's facts checked by `options.facts` and typed for the messages. */
export async function call<T, Code extends string, F>(
  session: Pick<Statements, 'query'>,
  statement: Sql,
  answer: z.ZodType<T>,
  refusals: Refusals<Code, F>,
  options: { code?: CodeKey; facts: z.ZodType<F> },
): Promise<Result<T>>;
export async function call<T, Code extends string, F>(
  session: Pick<Statements, 'query'>,
  statement: Sql,
  answer: z.ZodType<T>,
  refusals: Refusals<Code, F>,
  options: { code?: CodeKey; facts?: z.ZodType<F> } = {},
): Promise<Result<T>> {
  const [row] = await session.query(statement);
  const values = row ? Object.values(row) : [];
  const fn = functionOf(statement);
  if (values.length !== 1) throw new UnknownRefusal(fn, row ?? null);
  const reply = values[0];
  if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') throw new UnknownRefusal(fn, reply);
  const facts = reply as Facts;
  if (facts.ok === true) return ok(answer.parse(facts));
  const code = facts[options.code ?? 'error'];
  if (typeof code !== 'string' || !Object.hasOwn(refusals, code)) throw new UnknownRefusal(fn, reply);
  const message = refusals[code as Code];
  return refused(typeof message === 'string' ? message : message(options.facts ? options.facts.parse(facts) : (facts as F)));
}

/** Calls a SQL function that never refuses (it answers `ok: true` or raises): its answer, checked by `answer`. */
export async function answerOf<T>(session: Pick<Statements, 'query'>, statement: Sql, answer: z.ZodType<T>): Promise<T> {
  const result = await call(session, statement, answer, NO_REFUSALS);
  // A refusal has thrown already: NO_REFUSALS lists no code.
  if (!result.ok) throw new UnknownRefusal(functionOf(statement), result);
  return result.value;
}

/** The function a statement calls (`public.staff_payout_mark`), to name it when its answer is not understood. */
function functionOf(statement: Sql): string {
  return /\b([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*\(/i.exec(statement.chunks.join(' '))?.[1] ?? 'a SQL function';
}
