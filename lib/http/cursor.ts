import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sameText } from '../crypto';
import { serviceSecret } from '../db/service-secrets';
import { log, describeError } from '../log';
import { ApiError } from './errors';

/**
 * Pagination cursors: opaque, tamper-evident (HMAC-SHA256) and bound to the list and the query
 * they came from, so an edited cursor or one from another query, limit or endpoint is a 400. The
 * key is generated once and kept in `service_secrets`, so every instance and restart accepts it.
 */

let key: Promise<Buffer> | undefined;

/**
 * The key cursors are signed with. An answer kept with a cursor in it is kept with this key
 * beside it: under another key (tests swap it) the answer is made again.
 */
export function cursorKey(): Promise<Buffer> {
  key ??= serviceSecret('cursor_key', () => randomBytes(32).toString('base64url'))
    .then((v) => Buffer.from(v, 'base64url'))
    .catch((err) => {
      // Without the database, cursors still work, but only within this instance.
      log.warn('cursor key not stored; using a key of this process only', describeError(err));
      return randomBytes(32);
    });
  return key;
}

/** Tests: use this key instead of the stored one. */
export function useCursorKey(k: Buffer | undefined): void {
  key = k ? Promise.resolve(k) : undefined;
}

function bindingHash(binding: string): string {
  return createHash('sha256').update(binding).digest('base64url').slice(0, 16);
}

function sign(k: Buffer, payload: string): string {
  return createHmac('sha256', k).update(payload).digest('base64url');
}

/** `binding` names what the cursor belongs to: the list, and the query and limit it pages. */
export async function encodeCursor(binding: string, offset: number): Promise<string> {
  const k = await cursorKey();
  const payload = Buffer.from(JSON.stringify({ b: bindingHash(binding), o: offset })).toString('base64url');
  return `${payload}.${sign(k, payload)}`;
}

const INVALID = 'Invalid query parameter `cursor`: it was not issued for this query; start again without a cursor.';

export async function decodeCursor(binding: string, cursor: string): Promise<number> {
  const [payload, mac, ...rest] = cursor.split('.');
  if (!payload || !mac || rest.length > 0) throw new ApiError('invalid_request', INVALID);
  if (!sameText(sign(await cursorKey(), payload), mac)) throw new ApiError('invalid_request', INVALID);
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', INVALID);
  }
  const { b, o } = (data ?? {}) as { b?: unknown; o?: unknown };
  if (b !== bindingHash(binding) || typeof o !== 'number' || !Number.isInteger(o) || o < 0) {
    throw new ApiError('invalid_request', INVALID);
  }
  return o;
}

/** The `pagination` object (`next_cursor`, `has_more`, `limit`) of a page ending at `end` of `total`. */
export async function paginationAt(binding: string, end: number, total: number, limit: number) {
  const hasMore = end < total;
  return { next_cursor: hasMore ? await encodeCursor(binding, end) : null, has_more: hasMore, limit };
}

/** One page of `items` from `offset`, with its `pagination` object. */
export async function paginate<T>(items: readonly T[], offset: number, limit: number, binding: string) {
  const page = items.slice(offset, offset + limit);
  return { page, pagination: await paginationAt(binding, offset + page.length, items.length, limit) };
}
