import { createHash, createHmac } from 'node:crypto';
import { sameText } from '../crypto';
import { ApiError } from './errors';

/**
 * Pagination cursors: opaque, tamper-evident (HMAC-SHA256) and bound to the list and the query
 * they came from, so an edited cursor or one from another query, limit or endpoint is a 400. The
 * key (`Services.cursorKey`) is generated once and kept in `service_secrets`, so every instance
 * and restart accepts it.
 */

function bindingHash(binding: string): string {
  return createHash('sha256').update(binding).digest('base64url').slice(0, 16);
}

function sign(k: Buffer, payload: string): string {
  return createHmac('sha256', k).update(payload).digest('base64url');
}

/** `binding` names what the cursor belongs to: the list, and the query and limit it pages. */
export function encodeCursor(k: Buffer, binding: string, offset: number): string {
  const payload = Buffer.from(JSON.stringify({ b: bindingHash(binding), o: offset })).toString('base64url');
  return `${payload}.${sign(k, payload)}`;
}

const INVALID = 'Invalid query parameter `cursor`: it was not issued for this query; start again without a cursor.';

export function decodeCursor(k: Buffer, binding: string, cursor: string): number {
  const [payload, mac, ...rest] = cursor.split('.');
  if (!payload || !mac || rest.length > 0) throw new ApiError('invalid_request', INVALID);
  if (!sameText(sign(k, payload), mac)) throw new ApiError('invalid_request', INVALID);
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
export function paginationAt(k: Buffer, binding: string, end: number, total: number, limit: number) {
  const hasMore = end < total;
  return { next_cursor: hasMore ? encodeCursor(k, binding, end) : null, has_more: hasMore, limit };
}

/** One page of `items` from `offset`, with its `pagination` object. */
export function paginate<T>(k: Buffer, items: readonly T[], offset: number, limit: number, binding: string) {
  const page = items.slice(offset, offset + limit);
  return { page, pagination: paginationAt(k, binding, offset + page.length, items.length, limit) };
}
