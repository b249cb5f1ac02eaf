import type { z } from 'zod';
import { ApiError } from './errors';

/** Request bodies above this are refused before parsing (no endpoint needs more). */
export const MAX_BODY_BYTES = 64 * 1024;

function describeIssue(where: 'query parameter' | 'body field', issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `Invalid ${where} \`${path}\`: ${issue.message}` : `Invalid ${where === 'body field' ? 'body' : 'query'}: ${issue.message}`;
}

/** The parameter names an object schema declares (worked out once per schema, not per request). */
const declaredNames = new WeakMap<z.ZodType, Set<string> | undefined>();

function knownParameters(schema: z.ZodType): Set<string> | undefined {
  if (declaredNames.has(schema)) return declaredNames.get(schema);
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  const names = shape ? new Set(Object.keys(shape)) : undefined;
  declaredNames.set(schema, names);
  return names;
}

/**
 * Query parameters: unknown ones are ignored (additive evolution), a known one given twice is
 * ambiguous and refused, and the values are validated by the route's schema. `query` is the raw
 * query string, without `?`.
 */
export function parseQuery<S extends z.ZodType>(query: string, schema: S): z.output<S> {
  return validateQuery(new URLSearchParams(query), schema);
}

function validateQuery<S extends z.ZodType>(params: URLSearchParams, schema: S): z.output<S> {
  const known = knownParameters(schema);
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (known && !known.has(key)) continue;
    if (key in raw) throw new ApiError('invalid_request', `Invalid query parameter \`${key}\`: give it once.`);
    raw[key] = value;
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw new ApiError('invalid_request', describeIssue('query parameter', result.error.issues[0]!));
  return result.data;
}

/** The raw body as text, refused (413) beyond MAX_BODY_BYTES whatever the Content-Length says. */
export async function readText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new ApiError('payload_too_large', `The body must be at most ${maxBytes} bytes.`);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ApiError('payload_too_large', `The body must be at most ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

function mediaType(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The media types each kind of body is accepted as. `beacon`: JSON, also as `navigator.sendBeacon`'s `text/plain`. */
export const BODY_TYPES = {
  json: ['application/json'],
  form: ['application/x-www-form-urlencoded'],
  beacon: ['application/json', 'text/plain'],
} as const;
export type BodyType = keyof typeof BODY_TYPES;

export async function readBody<S extends z.ZodType>(request: Request, schema: S, type: BodyType, maxBytes = MAX_BODY_BYTES): Promise<z.output<S>> {
  const accepted: readonly string[] = BODY_TYPES[type];
  if (!accepted.includes(mediaType(request))) {
    throw new ApiError('unsupported_media_type', `The body must be sent as ${accepted.join(' or ')}.`);
  }
  const text = await readText(request, maxBytes);
  let raw: unknown;
  if (type !== 'form') {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    }
  } else {
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(text)) {
      // RFC 6749 §3.1 and §3.2: parameters must not be included more than once.
      if (key in form) throw new ApiError('invalid_request', `The parameter \`${key}\` must be given once.`);
      form[key] = value;
    }
    raw = form;
  }
  const result = schema.safeParse(raw);
  if (!result.success) throw new ApiError('invalid_request', describeIssue('body field', result.error.issues[0]!));
  return result.data;
}
