import type { z } from 'zod';
import { ApiError } from './errors';

/** Request bodies above this are refused before parsing (no endpoint needs more). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * JSON bodies nesting arrays and objects deeper than this are refused before any code walks
 * them: schema validators and SDKs recurse, and 9,000 levels (well within 64 KiB) overflow the
 * stack. No body we accept needs a tenth of it: our own schemas nest at most 5 levels, and the
 * free-form JSON an A2A message may carry (metadata, data parts) gets the rest.
 */
export const MAX_JSON_DEPTH = 64;

/** JSON that parsed, but nests deeper than allowed; `value` is what it parsed to. */
export class JsonTooDeep extends Error {
  constructor(
    readonly value: unknown,
    readonly maxDepth: number,
  ) {
    super(`The JSON nests arrays and objects more than ${maxDepth} levels deep.`);
    this.name = 'JsonTooDeep';
  }
}

/**
 * How deep arrays and objects nest in JSON text (0 for a scalar), counting no further than
 * `limit + 1`: one pass over the text, skipping strings, with no recursion and no allocation.
 * Meant for text JSON.parse accepted; on other text the figure means nothing.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * JSON.parse, then the depth check: a SyntaxError for text that is not JSON, `JsonTooDeep` for
 * JSON nested more than `maxDepth` levels.
 */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const value: unknown = JSON.parse(text);
  if (jsonDepth(text, maxDepth) > maxDepth) throw new JsonTooDeep(value, maxDepth);
  return value;
}

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

/**
 * The raw body's bytes, refused (413, `message` or the default) beyond `maxBytes` whatever the
 * Content-Length says: a declared length over it is refused before anything is read, and the
 * stream is cancelled as soon as more arrives.
 */
export async function readBytes(
  request: Request,
  maxBytes = MAX_BODY_BYTES,
  message = `The body must be at most ${maxBytes} bytes.`,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new ApiError('payload_too_large', message);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ApiError('payload_too_large', message);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The raw body as text, refused (413) beyond MAX_BODY_BYTES whatever the Content-Length says. */
export async function readText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  return new TextDecoder('utf-8', { fatal: false }).decode(await readBytes(request, maxBytes));
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
      raw = parseJson(text);
    } catch (err) {
      if (err instanceof JsonTooDeep) throw new ApiError('invalid_request', `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`);
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
