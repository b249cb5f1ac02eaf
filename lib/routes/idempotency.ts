import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../platform/db/roles';
import { asService } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { ApiError } from '../platform/http/errors';
import { jsonText, type JsonReply } from '../platform/http/kernel';
import { IDEMPOTENCY_KEY } from '../schemas/common';

/**
 * `Idempotency-Key` (ARCHITECTURE.md, Decisions the interface leaves open): the first request
 * with a key runs and its answer is kept for 24 h; a retry with the same key and body gets that
 * answer unchanged; the same key with another body is refused; a retry while the first still
 * runs waits for it, then gives up with a conflict.
 *
 * The table never holds a usable secret: the key is stored as its SHA-256, and the answer (which
 * may carry a client secret) is encrypted under a key derived from the Idempotency-Key and the
 * request, which only the caller knows.
 */

/** The request's Idempotency-Key, null without one; 400 when it is not 1 to 255 visible ASCII characters. */
export function idempotencyKey(request: Request): string | null {
  const key = request.headers.get('idempotency-key');
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters (0x21 to 0x7E).');
  }
  return key;
}

/** A record still `running` after this long belonged to a process that died: it may be retried. */
const ABANDONED_AFTER_S = 60;
/** How many expired records one claim deletes: more than one, so deletion outpaces creation. */
const SWEEP = 20;

export interface StoredAnswer {
  status: number;
  body: string;
}

export type IdempotentOutcome =
  { kind: 'ran'; answer: StoredAnswer } | { kind: 'replayed'; answer: StoredAnswer } | { kind: 'mismatch' } | { kind: 'in_progress' };

export interface IdempotencyOptions {
  /** Which operation the key belongs to (`oauth_register`, `batch`). */
  scope: string;
  /** Whose key it is: a caller's keys never meet another's. */
  principal: string;
  key: string;
  /** Everything that makes two requests "the same": method, path, body, credentials. */
  fingerprint: string;
  run: () => Promise<StoredAnswer>;
  /** How long a retry waits for a running first attempt. */
  waitMs?: number;
  engine: Database;
  /** Milliseconds since the epoch (Services.now). */
  now?: () => number;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function encrypt(plain: string, secret: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

function decrypt(stored: string, secret: Buffer): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A record as a waiting request reads it: the answer is there once its first attempt is `done`. */
const idempotencyRecord = z.object({
  request_hash: z.string(),
  state: z.enum(['running', 'done']),
  response_status: z.number().int().nullable(),
  response_body: z.string().nullable(),
});

export async function idempotent(options: IdempotencyOptions): Promise<IdempotentOutcome> {
  const { scope, principal, engine } = options;
  const now = options.now ?? Date.now;
  const keyHash = sha256(`key\n${options.key}`).toString('hex');
  const requestHash = sha256(`request\n${options.fingerprint}`).toString('hex');
  const secret = sha256(`answer\n${options.key}\n${options.fingerprint}`);

  // Claim the key, or take over a record that expired or was abandoned mid-run. Expired records
  // of others are deleted on the way, a few at a time, so the table holds about a day of
  // records with no scheduler.
  const [, claimed = []] = await asService(engine).script(
    sql`delete from public.idempotency_records r
        using (select scope, principal, idempotency_key from public.idempotency_records
               where expires_at < now() order by expires_at limit ${SWEEP}) old
        where (r.scope, r.principal, r.idempotency_key) = (old.scope, old.principal, old.idempotency_key)
        returning 1`,
    sql`insert into public.idempotency_records (scope, principal, idempotency_key, request_hash)
        values (${scope}, ${principal}, ${keyHash}, ${requestHash})
        on conflict (scope, principal, idempotency_key) do update
          set request_hash = excluded.request_hash, state = 'running', response_status = null,
              response_body = null, created_at = now(), expires_at = now() + interval '24 hours'
          where idempotency_records.expires_at < now()
             or (idempotency_records.state = 'running'
                 and idempotency_records.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_S}))
        returning 1 as claimed`,
  );

  if (claimed.length === 1) {
    let answer: StoredAnswer;
    try {
      answer = await options.run();
    } catch (err) {
      // Nothing was answered: forget the claim so that a retry runs again.
      await asService(engine).query(
        sql`delete from public.idempotency_records where scope = ${scope} and principal = ${principal} and idempotency_key = ${keyHash}`,
      );
      throw err;
    }
    await asService(engine).query(
      sql`update public.idempotency_records set state = 'done', response_status = ${answer.status}, response_body = ${encrypt(answer.body, secret)}
          where scope = ${scope} and principal = ${principal} and idempotency_key = ${keyHash}`,
    );
    return { kind: 'ran', answer };
  }

  const deadline = now() + (options.waitMs ?? 10_000);
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const [record] = await asService(engine).query(
      sql`select request_hash, state, response_status, response_body from public.idempotency_records
          where scope = ${scope} and principal = ${principal} and idempotency_key = ${keyHash}`,
      idempotencyRecord,
    );
    // The first attempt failed and let go of the key meanwhile: run it now.
    if (!record) return idempotent(options);
    if (record.request_hash !== requestHash) return { kind: 'mismatch' };
    if (record.state === 'done' && record.response_status !== null && record.response_body !== null) {
      return { kind: 'replayed', answer: { status: record.response_status, body: decrypt(record.response_body, secret) } };
    }
    if (now() >= deadline) return { kind: 'in_progress' };
    await sleep(delay);
  }
}

/**
 * The HTTP side of `idempotent`, shared by every endpoint that takes the header: the stored or
 * fresh answer with the key echoed (and `Idempotent-Replayed` on a replay); another body with
 * the same key is a 400, a first attempt still running a 409. `what` names the operation in
 * those messages ("batch", "registration").
 */
export async function idempotentResponse(options: IdempotencyOptions & { what: string; headers?: Record<string, string> }): Promise<JsonReply> {
  const outcome = await idempotent(options);
  if (outcome.kind === 'mismatch') {
    throw new ApiError('invalid_request', `This Idempotency-Key was used with another ${options.what}: use a new key for a new ${options.what}.`);
  }
  if (outcome.kind === 'in_progress') {
    throw new ApiError('conflict', `A ${options.what} with this Idempotency-Key is still running: retry in a moment.`);
  }
  const headers: Record<string, string> = { ...options.headers, 'Idempotency-Key': options.key };
  if (outcome.kind === 'replayed') headers['Idempotent-Replayed'] = 'true';
  return jsonText(outcome.answer.body, { status: outcome.answer.status, headers });
}
