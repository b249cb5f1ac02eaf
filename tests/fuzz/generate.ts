import { z } from 'zod';
import { HTTP_METHODS, type HttpMethod } from '@/lib/platform/http/declaration';
import type { OperationDeclaration, RouteDeclaration } from '@/lib/schemas/registry';
import { Rng } from './rng';

/**
 * The fuzzer's request generator: pure (no I/O, no clock, no Math.random), so that a seed and an
 * index say exactly which request is made. Its inputs are the route registry (every route and
 * every method, so a new route is fuzzed without a change here) and the fixtures the test made
 * (tokens, keys, ids, cursors: strings only).
 *
 * Request `i` of a run is, for `i` below the number of (route, method) pairs, a well-formed
 * request for pair `i` (so every route and method is reached, and deep code paths are too), and
 * after that a random pair's well-formed request with up to three mutations: boundary and
 * malformed query values, malformed bodies and content types, route-aware mutations (JSON-RPC,
 * batches, events, OAuth forms), bogus credentials and cursors, odd headers, another method, and
 * a percent-encoded or dot-segmented variant of the path.
 */

// ── What the test hands the generator ─────────────────────────────────────────────────────────

export interface Fixtures {
  /** PUBLIC_BASE_URL: the origin of the service. */
  origin: string;
  tokens: {
    sandbox: string;
    /** Valid access tokens with every scope, for both resources. */
    full: string[];
    apiOnly: string;
    mcpOnly: string;
    /** Valid tokens with fewer scopes. */
    scoped: string[];
    expired: string;
    foreignSigned: string;
    otherIssuer: string;
    /** Our signature, for a user who does not exist (deleted after the token was issued). */
    deletedUser: string;
    /** An agent identity assertion (not an access token). */
    assertion: string;
  };
  sdk: {
    /** Keys of the fuzz app, whose placements are `placements`. */
    keys: string[];
    placements: string[];
    /** Placements of another publisher's app. */
    foreignPlacements: string[];
    revokedKey: string;
    archivedKey: string;
    /** A key whose app allows one web origin. */
    originKey: { key: string; origin: string };
    decisionTokens: string[];
    /** Subjects with a current consent to both purposes (never withdrawn by the fuzzer). */
    consentedSubjects: string[];
    /** A subject with a consent that the fuzzer withdraws (again and again: after the first, nothing is left). */
    withdrawnSubject: string;
    /** The consent proof of each of those subjects (`x-consent-proof`), by subject id. */
    consentProofs: Record<string, string>;
  };
  /** A conversions key and the conversion tag id of an advertiser whose ads were served, and click ids of those ads. */
  conversions: { key: string; tag: string; clickIds: string[] };
  account: { appIds: string[]; placementIds: string[] };
  /** Uploaded media the storage holds (`/media/<key>`). */
  media: { keys: string[] };
  /** Download links of a licensed export, issued to the user of `oauth.sessionCookie` (`/downloads/<export>/<format>?expires=…&sig=…`). */
  downloads: { links: string[] };
  cursors: { pages: { limit: number; cursor: string }; search: { q: string; limit: number; cursor: string } };
  oauth: {
    publicClientId: string;
    confidentialClient: { id: string; secret: string };
    redirectUri: string;
    verifier: string;
    challenge: string;
    sessionCookieName: string;
    sessionCookie: string;
    /** An authorization request (query string) and the consent page's CSRF token for it. */
    authorizeQuery: string;
    csrf: string;
    codes: string[];
  };
  /** Public page paths (`/`, `/docs/payouts`), for the markdown twins. */
  pages: string[];
  /** Signs a Stripe webhook payload as Stripe would for the services' webhook secret (`stripe-signature`). */
  stripeSignature(payload: string): string;
  /** The services' CRON_SECRET, which the scheduler sends as a bearer token (`/api/cron/data-jobs`). */
  cronSecret: string;
}

/** A (route, method) pair of the registry. */
export interface Target {
  route: string;
  declaration: RouteDeclaration;
  method: HttpMethod;
  operation?: OperationDeclaration;
}

export type Budget = 'high' | 'default';

export interface FuzzRequest {
  index: number;
  /** The (route, method) pair the request was made for (mutations may send it elsewhere). */
  intent: string;
  /** The generator families that shaped it (`valid` alone: unmutated). */
  tags: string[];
  /** Which rate-limit budget the test runs it under. */
  budget: Budget;
  /** The peer address, appended to X-Forwarded-For as scripts/serve.mjs does. */
  ip: string;
  method: HttpMethod;
  /** The request target as the client sends it: path and query, before any normalization. */
  target: string;
  headers: [string, string][];
  body?: string | Uint8Array<ArrayBuffer>;
}

export interface Plan {
  seed: number;
  targets: Target[];
  fixtures: Fixtures;
  /** Share of the random requests run under the documented default budget (so 429s are met). */
  defaultBudgetShare: number;
  /** The peer address of the default-budget slice: one address, so it runs out. */
  defaultBudgetIp: string;
}

/** Every route of the registry with every method (declared or not), in registry order. */
export function targetsOf(routes: Record<string, RouteDeclaration>): Target[] {
  return Object.entries(routes).flatMap(([route, declaration]) =>
    HTTP_METHODS.map((method) => ({
      route,
      declaration,
      method,
      operation: (declaration.methods as Record<string, OperationDeclaration | undefined>)[method === 'HEAD' ? 'GET' : method],
    })),
  );
}

// ── Drafts: a request being made ──────────────────────────────────────────────────────────────

interface Draft {
  method: HttpMethod;
  path: string;
  /** Raw `name=value` pairs (already percent-encoded as sent), or a bare `name`. */
  query: string[];
  headers: [string, string][];
  body?: string | Uint8Array<ArrayBuffer>;
  tags: string[];
}

function setHeader(d: Draft, name: string, value: string): void {
  d.headers = d.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  d.headers.push([name, value]);
}

/**
 * The subject's consent proof in `x-consent-proof`, mostly; sometimes none, or one of the right
 * form that no subject has, which the service answers as it answers an unknown subject.
 */
function proofFor(rng: Rng, d: Draft, subject: string, fx: Fixtures): void {
  const proof = fx.sdk.consentProofs[subject];
  if (proof && rng.chance(0.85)) setHeader(d, 'x-consent-proof', proof);
  else if (rng.chance(0.5)) setHeader(d, 'x-consent-proof', `cp_${rng.string(43)}`);
}

function getHeader(d: Draft, name: string): string | undefined {
  return d.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

function deleteHeader(d: Draft, name: string): void {
  d.headers = d.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encoding of a value's UTF-8 bytes (lone surrogates become U+FFFD, as a client's encoder makes them). */
export function pct(value: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(value)) {
    const c = String.fromCharCode(byte);
    out += UNRESERVED.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function param(name: string, value: string | number): string {
  return `${pct(name)}=${pct(String(value))}`;
}

function jsonBody(d: Draft, body: unknown, type = 'application/json'): void {
  d.body = JSON.stringify(body);
  setHeader(d, 'content-type', type);
}

function formBody(d: Draft, fields: Record<string, string>): void {
  d.body = Object.entries(fields)
    .map(([k, v]) => param(k, v))
    .join('&');
  setHeader(d, 'content-type', 'application/x-www-form-urlencoded');
}

function b64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

// ── JSON Schema sampling (zod → JSON Schema, as the OpenAPI document does) ───────────────────

type Json = Record<string, unknown>;
const schemas = new WeakMap<z.ZodType, Json>();

export function jsonSchemaOf(schema: z.ZodType): Json {
  let s = schemas.get(schema);
  if (!s) schemas.set(schema, (s = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json));
  return s;
}

/** The names of a query schema's parameters. */
function queryNames(op: OperationDeclaration | undefined): string[] {
  return op?.query ? Object.keys(op.query.shape) : [];
}

/** A string matching the simple patterns the schemas use (`^[class]+$`, `^[class]{n}$`), or undefined. */
function fromPattern(rng: Rng, pattern: string, min: number, max: number): string | undefined {
  const m = /^\^\[([^\]]+)\](\+|\{(\d+)\})\$$/.exec(pattern);
  if (!m) return undefined;
  let alphabet = '';
  const cls = m[1]!;
  for (let i = 0; i < cls.length; i++) {
    if (cls[i + 1] === '-' && i + 2 < cls.length) {
      for (let c = cls.charCodeAt(i); c <= cls.charCodeAt(i + 2); c++) alphabet += String.fromCharCode(c);
      i += 2;
    } else alphabet += cls[i];
  }
  const length = m[3] ? Number(m[3]) : rng.int(Math.max(1, min), Math.max(1, Math.min(max, min + 16)));
  return rng.string(length, alphabet);
}

const WORDS = [
  'payout',
  'api',
  'sdk',
  'rate limit',
  'consent',
  'oauth token',
  'placement',
  'earnings',
  'mcp',
  'pricing',
  'batch',
  'errors',
  'minimum payout',
  'scopes',
];

/** A value of the field `name` that the fixtures know a good one for. */
function hinted(rng: Rng, name: string, fx: Fixtures): unknown {
  switch (name) {
    case 'subject_id':
      return rng.pick(fx.sdk.consentedSubjects);
    case 'placement_id':
      return rng.pick(fx.sdk.placements);
    case 'app_id':
      return rng.pick(fx.account.appIds);
    case 'token':
      return rng.pick(fx.sdk.decisionTokens);
    case 'keywords':
      return rng.pick(['ai', 'travel,ai', 'quiz,chat bots', 'x']);
    case 'session_id':
      return `sess-${rng.string(rng.int(4, 20))}`;
    case 'q':
    case 'question':
    case 'query':
      return rng.pick(WORDS);
    case 'policy_version':
      return `v${rng.int(1, 9)}`;
    default:
      return undefined;
  }
}

export function sample(rng: Rng, schema: Json, fx: Fixtures, name = '', depth = 0): unknown {
  const hint = hinted(rng, name, fx);
  if (hint !== undefined) return hint;
  if (Array.isArray(schema.enum)) return rng.pick(schema.enum as unknown[]);
  if ('const' in schema) return schema.const;
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union) return sample(rng, rng.pick(union), fx, name, depth);
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(props)) if (required.has(key) || rng.chance(0.6)) out[key] = sample(rng, prop, fx, key, depth + 1);
      return out;
    }
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min((schema.maxItems as number | undefined) ?? min + 3, min + 3);
      const items = (schema.items ?? {}) as Json;
      return Array.from({ length: rng.int(min, max) }, () => sample(rng, items, fx, name, depth + 1));
    }
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0;
      const max = (schema.maxLength as number | undefined) ?? min + 16;
      if (schema.format === 'uuid') return rng.uuid();
      if (schema.format === 'date-time') return new Date(Date.UTC(2026, 0, 1) + rng.int(0, 300) * 86_400_000).toISOString();
      if (typeof schema.pattern === 'string') return fromPattern(rng, schema.pattern, min, max) ?? rng.string(Math.max(min, 1));
      return rng.string(rng.int(Math.max(min, 1), Math.max(Math.max(min, 1), Math.min(max, min + 12))));
    }
    case 'integer':
    case 'number': {
      const min = (schema.minimum as number | undefined) ?? 0;
      const max = (schema.maximum as number | undefined) ?? min + 100;
      const n = rng.int(Math.ceil(min), Math.floor(Math.min(max, min + 1000)));
      return schema.type === 'number' && rng.chance(0.3) ? Math.min(max, n + rng.float()) : n;
    }
    case 'boolean':
      return rng.chance(0.5);
    default:
      return depth > 2 ? null : randomJson(rng, 2);
  }
}

function randomJson(rng: Rng, depth: number): unknown {
  const kind = rng.int(0, depth > 0 ? 6 : 4);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 53 + 1, -0, 1e308]);
    case 3:
      return rng.pick(['', 'x', rng.string(8), 'é😀', '\u0000', '\ud800']);
    case 4:
      return rng.string(3);
    case 5:
      return Array.from({ length: rng.int(0, 3) }, () => randomJson(rng, depth - 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(0, 3) }, () => [rng.pick(['a', 'type', 'id', '__proto__', 'constructor', '']), randomJson(rng, depth - 1)]),
      );
  }
}

// ── Well-formed requests, per operation ──────────────────────────────────────────────────────

const ACCEPT_MCP = 'application/json, text/event-stream';

function authorization(d: Draft, token: string): void {
  setHeader(d, 'authorization', `Bearer ${token}`);
}

/** A credential the operation's declaration asks for, well-formed and valid. */
function credentialFor(rng: Rng, d: Draft, op: OperationDeclaration, fx: Fixtures): void {
  const c = op.credential;
  switch (c.kind) {
    case 'bearer':
      authorization(d, rng.chance(0.4) ? fx.tokens.sandbox : c.resource === 'mcp' && rng.chance(0.3) ? fx.tokens.mcpOnly : rng.pick(fx.tokens.full));
      break;
    case 'optional-bearer':
    case 'forwarded-bearer':
      if (rng.chance(0.7)) authorization(d, rng.chance(0.5) ? fx.tokens.sandbox : rng.pick(fx.tokens.full));
      break;
    case 'api-key':
    case 'app-key':
      setHeader(d, 'x-api-key', rng.pick(fx.sdk.keys));
      break;
    case 'optional-api-key':
      if (rng.chance(0.6)) setHeader(d, 'x-api-key', rng.pick(fx.sdk.keys));
      break;
    case 'conversion-key':
      authorization(d, fx.conversions.key);
      break;
    case 'none':
      break;
  }
}

/** Valid query parameters from the operation's schema. */
function schemaQuery(rng: Rng, d: Draft, op: OperationDeclaration, fx: Fixtures): void {
  if (!op.query) return;
  const value = sample(rng, jsonSchemaOf(op.query), fx) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) if (k !== 'cursor' && v !== undefined) d.query.push(param(k, String(v)));
}

function schemaBody(rng: Rng, d: Draft, op: OperationDeclaration, fx: Fixtures): void {
  if (!op.body) return;
  const value = sample(rng, jsonSchemaOf(op.body), fx);
  if (op.bodyType === 'form') formBody(d, Object.fromEntries(Object.entries((value ?? {}) as object).map(([k, v]) => [k, String(v)])));
  else jsonBody(d, value);
}

function rpc(id: number | string | null, method: string, params?: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
}

function mcpMessage(rng: Rng, fx: Fixtures, account: boolean): Record<string, unknown> {
  const id = rng.int(1, 1000);
  const tools: [string, Record<string, unknown>][] = account
    ? [
        ['whoami', {}],
        ['list_my_apps', { placement_status: rng.pick(['all', 'active', 'paused']) }],
        ['get_my_earnings', { payout_limit: rng.int(0, 50) }],
        ['get_my_daily_earnings', { days: rng.pick(['7', '30', '90']) }],
        ['list_my_api_keys', {}],
      ]
    : [
        ['search_docs', { query: rng.pick(WORDS), limit: rng.int(1, 20) }],
        ['get_page', { path: rng.pick(fx.pages) }],
        ['get_pricing', { audience: rng.pick(['all', 'publisher', 'advertiser', 'data_buyer']) }],
      ];
  const [name, args] = rng.pick(tools);
  return rng.weighted<Record<string, unknown>>([
    [rpc(id, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1.0.0' } }), 2],
    [rpc(id, 'tools/list'), 2],
    [rpc(id, 'tools/call', { name, arguments: args }), 5],
    [rpc(id, 'ping'), 1],
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, 1],
  ]);
}

function a2aMessage(rng: Rng): Record<string, unknown> {
  const id = rng.int(1, 1000);
  return rng.weighted<Record<string, unknown>>([
    [
      rpc(id, 'SendMessage', {
        message: {
          role: 'ROLE_USER',
          messageId: rng.uuid(),
          parts: [{ text: rng.pick(['What is the minimum payout?', 'How do rate limits work?', 'pricing', 'What is the CPM of a tooltip?']) }],
        },
      }),
      6,
    ],
    [rpc(id, 'GetTask', { id: rng.uuid() }), 2],
    [rpc(id, 'CancelTask', { id: rng.uuid() }), 1],
    [rpc(id, 'ListTasks', {}), 1],
  ]);
}

function eventsOf(rng: Rng, fx: Fixtures, count: number) {
  return Array.from({ length: count }, () => {
    const token = rng.pick(fx.sdk.decisionTokens);
    const type = rng.chance(0.7) ? 'impression' : 'click';
    return {
      id: `${token.split('.')[0]}.${type}${rng.chance(0.3) ? `-${rng.string(4)}` : ''}`,
      type,
      token,
      ...(type === 'impression'
        ? {
            viewability: {
              visible_share: rng.pick([0.5, 0.8, 1, 0.1]),
              visible_seconds: rng.pick([1, 1.2, 2.5, 0.2]),
              ...(rng.chance(0.3) ? { area_px: rng.int(0, 400_000) } : {}),
            },
          }
        : {}),
    };
  });
}

function batchPath(rng: Rng, fx: Fixtures): string {
  return rng.pick([
    () => `/api/v1/search?q=${pct(rng.pick(WORDS))}&limit=${rng.int(1, 20)}`,
    () => `/api/v1/pricing?audience=${rng.pick(['all', 'publisher', 'advertiser', 'data_buyer'])}`,
    () => `/api/v1/pages?limit=${rng.int(1, 100)}`,
    () => `/api/v1/pages?limit=${fx.cursors.pages.limit}&cursor=${pct(fx.cursors.pages.cursor)}`,
    () => '/api/v1/me',
    () => `/api/v1/me/apps?placement_status=${rng.pick(['all', 'active', 'paused'])}`,
    () => `/api/v1/me/earnings?payout_limit=${rng.int(0, 50)}`,
    () => `/api/v1/me/earnings/daily?days=${rng.pick(['7', '30', '90'])}${rng.chance(0.3) ? `&app_id=${rng.pick(fx.account.appIds)}` : ''}`,
    () => `/api/v1/me/api-keys?environment=${rng.pick(['all', 'development', 'production'])}`,
  ])();
}

/** Where next-auth is asked to send the browser afterwards: ours, a path, elsewhere, or no URL at all. */
function callbackUrl(rng: Rng, fx: Fixtures): string {
  return rng.pick([
    `${fx.origin}/dashboard`,
    '/dashboard',
    '//evil.example',
    'https://evil.example/',
    `${fx.origin}]`,
    '[',
    'not a url',
    '',
    'javascript:alert(1)',
    'http://',
  ]);
}

const NEXTAUTH_ACTIONS = ['session', 'csrf', 'providers', 'signin', 'signout', 'callback/github', 'error', 'signin/google', '_log', 'nope'];
const SEGMENTS = ['nope', 'x', 'tasks', '1', 'v2', 'me', 'search', 'index', 'a.b', 'é', '%F0%9F%98%80', '%20', '%2F', '%00', '~', '-', '_'];

/** The route's path with its dynamic segments filled in. */
function concretePath(rng: Rng, route: string, fx: Fixtures): string {
  if (route === '/api/auth/[...nextauth]') return `/api/auth/${rng.pick(NEXTAUTH_ACTIONS)}`;
  if (route === '/markdown/[[...slug]]') {
    const page = rng.chance(0.85) ? rng.pick(fx.pages) : `/${rng.pick(SEGMENTS)}`;
    return `/markdown${page === '/' ? rng.pick(['', '/index']) : page}`;
  }
  return route
    .replace(/\/\[\[\.\.\.\w+\]\]$/, () => Array.from({ length: rng.int(0, 3) }, () => `/${rng.pick(SEGMENTS)}`).join(''))
    .replace(/\/\[\.\.\.\w+\]$/, () => Array.from({ length: rng.int(1, 3) }, () => `/${rng.pick(SEGMENTS)}`).join(''))
    .replace(/\[\w+\]/g, () => rng.pick(SEGMENTS));
}

/** A well-formed request for the target: valid credentials, parameters and body where it has any. */
/** A request the route should accept; `coverage`: the one request each route and method gets first, with nothing hostile in it. */
function wellFormed(rng: Rng, t: Target, fx: Fixtures, coverage = false): Draft {
  const d: Draft = { method: t.method, path: concretePath(rng, t.route, fx), query: [], headers: [], tags: ['valid'] };
  const op = t.operation;
  const key = `${t.method === 'HEAD' ? 'GET' : t.method} ${t.route}`;
  if (!op) {
    if (t.method !== 'GET' && t.method !== 'HEAD' && t.method !== 'OPTIONS' && rng.chance(0.5)) jsonBody(d, { x: 1 });
    if (t.method === 'OPTIONS') {
      setHeader(d, 'origin', rng.pick([fx.origin, 'https://elsewhere.example']));
      setHeader(d, 'access-control-request-method', rng.pick(['GET', 'POST', 'DELETE']));
    }
    return d;
  }
  credentialFor(rng, d, op, fx);
  switch (key) {
    case 'GET /media/[[...key]]':
      // A stored file, most of the time; else a key nothing was stored under.
      d.path = `/media/${rng.chance(0.8) ? rng.pick(fx.media.keys) : `${rng.string(32, '0123456789abcdef')}.png`}`;
      if (rng.chance(0.2)) setHeader(d, 'range', rng.pick(['bytes=0-9', 'bytes=5-', 'bytes=99999999-']));
      return d;
    case 'GET /downloads/[exportId]/[format]': {
      // A link issued to the signed-in buyer, most of the time (always the first time); else one altered.
      if (coverage || rng.chance(0.8)) setHeader(d, 'cookie', fx.oauth.sessionCookie);
      const [target, query] = rng.pick(fx.downloads.links).split('?') as [string, string];
      d.path = coverage || rng.chance(0.8) ? target : target.replace(/[0-9a-f]{8}-/, `${rng.string(8, '0123456789abcdef')}-`);
      for (const pair of query.split('&')) d.query.push(coverage || rng.chance(0.9) ? pair : pair.replace(/=.*/, `=${rng.string(6, 'abcXYZ019')}`));
      return d;
    }
    case 'GET /api/cron/data-jobs':
      // The scheduler's secret, most of the time (always the first time); else another, or none.
      if (coverage || rng.chance(0.7)) setHeader(d, 'authorization', `Bearer ${fx.cronSecret}`);
      else if (rng.chance(0.5)) setHeader(d, 'authorization', `Bearer ${rng.string(40)}`);
      return d;
    case 'GET /dashboard/ads/reports/report.csv':
      // The console's session, most of the time (the report of a user who is not an advertiser is empty, not refused).
      if (rng.chance(0.8)) setHeader(d, 'cookie', fx.oauth.sessionCookie);
      if (rng.chance(0.6)) d.query.push(param('days', rng.pick(['7', '30', '90', '1', 'x'])));
      return d;
    case 'POST /dashboard/ads/creatives/upload': {
      // The console's creative form as its fetch sends it: the session, our origin and JSON asked
      // for, most of the time (always the first time); a multipart form for a campaign that is
      // none of the user's, so that the form itself is refused and nothing is stored.
      if (coverage || rng.chance(0.8)) setHeader(d, 'cookie', fx.oauth.sessionCookie);
      if (coverage || rng.chance(0.8)) setHeader(d, 'origin', fx.origin);
      if (coverage || rng.chance(0.7)) setHeader(d, 'accept', 'application/json');
      const boundary = `fuzz${rng.hex(16)}`;
      const fields = {
        campaign_id: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`,
        format: rng.pick(['inline_text', 'tooltip', 'sponsored_card', 'floating_video']),
        headline: rng.pick(WORDS),
        cta: 'Try it',
        landing_url: 'https://advertiser.example/',
        ...(rng.chance(0.3) ? { id: `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}` } : {}),
      };
      d.body =
        Object.entries(fields)
          .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
          .join('') + `--${boundary}--\r\n`;
      setHeader(d, 'content-type', `multipart/form-data; boundary=${boundary}`);
      return d;
    }
    case 'GET /api/v1/search':
      if (rng.chance(0.3)) d.query.push(param('q', fx.cursors.search.q), param('limit', fx.cursors.search.limit), param('cursor', fx.cursors.search.cursor));
      else d.query.push(param('q', rng.pick(WORDS)), ...(rng.chance(0.5) ? [param('limit', rng.int(1, 20))] : []));
      return d;
    case 'GET /api/v1/pages':
      if (rng.chance(0.4)) d.query.push(param('limit', fx.cursors.pages.limit), param('cursor', fx.cursors.pages.cursor));
      else schemaQuery(rng, d, op, fx);
      return d;
    case 'GET /api/v1/me/earnings/daily':
      d.query.push(param('days', rng.pick(['7', '30', '90'])));
      if (rng.chance(0.3)) d.query.push(param('app_id', rng.pick(fx.account.appIds)));
      if (rng.chance(0.3)) d.query.push(param('placement_id', rng.pick(fx.account.placementIds)));
      return d;
    case 'POST /api/v1/batch': {
      jsonBody(d, {
        requests: Array.from({ length: rng.int(1, 20) }, (_, i) => ({
          path: batchPath(rng, fx),
          ...(rng.chance(0.5) ? { id: rng.chance(0.5) ? i : `r${i}` } : {}),
        })),
      });
      if (rng.chance(0.3)) setHeader(d, 'idempotency-key', `fuzz-${rng.string(12)}`);
      return d;
    }
    case 'GET /functions/v1/ads':
      d.query.push(param('placement_id', rng.chance(0.9) ? rng.pick(fx.sdk.placements) : rng.pick(fx.sdk.foreignPlacements)));
      if (rng.chance(0.6)) d.query.push(param('session_id', `sess-${rng.string(12)}`));
      if (rng.chance(0.4)) d.query.push(param('keywords', rng.pick(['ai', 'travel,ai', 'quiz, chat'])));
      return d;
    case 'POST /functions/v1/events': {
      const body = { events: eventsOf(rng, fx, rng.int(1, 5)) };
      // Without a key, the beacon: text/plain, authenticated by the tokens.
      jsonBody(d, body, getHeader(d, 'x-api-key') || rng.chance(0.5) ? 'application/json' : 'text/plain;charset=UTF-8');
      return d;
    }
    case 'POST /functions/v1/conversions':
      jsonBody(d, {
        event_id: `fuzz-${rng.string(12)}`,
        click_id: rng.pick(fx.conversions.clickIds),
        name: rng.pick(['signup', 'purchase', 'trial']),
        ...(rng.chance(0.5) ? { value_usd: rng.int(0, 500) } : {}),
        occurred_at: new Date().toISOString(),
      });
      return d;
    case 'POST /functions/v1/conversions/tag':
      jsonBody(
        d,
        { tag: fx.conversions.tag, click_id: rng.pick(fx.conversions.clickIds), name: rng.pick(['signup', 'purchase']) },
        rng.chance(0.5) ? 'application/json' : 'text/plain;charset=UTF-8',
      );
      return d;
    case 'GET /functions/v1/conversions/tag':
      d.query.push(param('tag', fx.conversions.tag), param('click_id', rng.pick(fx.conversions.clickIds)), param('name', rng.pick(['signup', 'purchase'])));
      return d;
    case 'GET /functions/v1/consents':
    case 'DELETE /functions/v1/consents': {
      // A DELETE withdraws: never one of the subjects the data requests rely on.
      const known = key.startsWith('DELETE') ? fx.sdk.withdrawnSubject : rng.pick(fx.sdk.consentedSubjects);
      // A HEAD is asked rarely: always of a known subject with its proof, so that it is seen to succeed.
      if (t.method === 'HEAD') {
        d.query.push(param('subject_id', known));
        setHeader(d, 'x-consent-proof', fx.sdk.consentProofs[known]!);
        return d;
      }
      const subject = rng.chance(0.3) ? rng.hex(64) : known;
      d.query.push(param('subject_id', subject));
      proofFor(rng, d, subject, fx);
      return d;
    }
    case 'POST /functions/v1/consents':
      jsonBody(d, {
        subject_id: rng.hex(64),
        purposes: rng.sample(['ai_interactions', 'ux_sessions'], rng.int(1, 2)),
        policy_version: `v${rng.int(1, 5)}`,
      });
      return d;
    case 'POST /functions/v1/data': {
      const subject = rng.pick(fx.sdk.consentedSubjects);
      proofFor(rng, d, subject, fx);
      if (rng.chance(0.6)) {
        jsonBody(d, {
          subject_id: subject,
          kind: 'ai_interaction',
          records: Array.from({ length: rng.int(1, 4) }, () => ({
            id: `rec-${rng.string(10)}`,
            data: { prompt: rng.pick(WORDS), response: 'An answer.', ...(rng.chance(0.5) ? { model: 'gpt-x' } : {}) },
          })),
        });
      } else {
        jsonBody(d, {
          subject_id: subject,
          kind: 'ux_session',
          records: [
            {
              id: `ux-${rng.string(10)}`,
              data: { started_at: '2026-01-02T03:04:05Z', duration_seconds: rng.int(0, 600), events: [{ t: 0, type: 'click', target: '#buy' }] },
            },
          ],
        });
      }
      return d;
    }
    case 'GET /oauth/authorize':
      d.query.push(fx.oauth.authorizeQuery);
      if (rng.chance(0.7)) setHeader(d, 'cookie', fx.oauth.sessionCookie);
      return d;
    case 'POST /oauth/authorize':
      formBody(d, { request: fx.oauth.authorizeQuery, csrf_token: fx.oauth.csrf, decision: rng.chance(0.5) ? 'approve' : 'deny' });
      setHeader(d, 'cookie', fx.oauth.sessionCookie);
      setHeader(d, 'origin', fx.origin);
      return d;
    case 'POST /oauth/token':
      if (rng.chance(0.5)) formBody(d, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: fx.tokens.assertion });
      else if (rng.chance(0.7))
        formBody(d, {
          grant_type: 'authorization_code',
          code: rng.pick(fx.oauth.codes),
          redirect_uri: fx.oauth.redirectUri,
          client_id: fx.oauth.publicClientId,
          code_verifier: fx.oauth.verifier,
        });
      else {
        formBody(d, { grant_type: 'authorization_code', code: rng.pick(fx.oauth.codes), redirect_uri: fx.oauth.redirectUri, code_verifier: fx.oauth.verifier });
        setHeader(d, 'authorization', `Basic ${Buffer.from(`${fx.oauth.confidentialClient.id}:${fx.oauth.confidentialClient.secret}`).toString('base64')}`);
      }
      return d;
    case 'POST /oauth/register':
      jsonBody(d, {
        client_name: `Fuzz ${rng.string(4)}`,
        redirect_uris: [rng.pick(['http://127.0.0.1:8765/callback', 'https://client.example/cb', 'com.example.app:/cb'])],
        ...(rng.chance(0.5) ? { token_endpoint_auth_method: rng.pick(['none', 'client_secret_basic', 'client_secret_post']) } : {}),
        ...(rng.chance(0.3) ? { scope: 'profile:read apps:read' } : {}),
      });
      if (rng.chance(0.3)) setHeader(d, 'idempotency-key', `fuzz-${rng.string(12)}`);
      return d;
    case 'GET /api/auth/[...nextauth]': {
      // Actions NextAuth answers (its error page answers 400 without an error to show: the path mutations reach it).
      d.path = `/api/auth/${rng.pick(['session', 'csrf', 'providers', 'signin'])}`;
      // Hostile callbacks, except in the first request of each method, which must be accepted.
      const callback = () => (coverage ? rng.pick([`${fx.origin}/dashboard`, '/dashboard']) : callbackUrl(rng, fx));
      if (rng.chance(0.3)) d.query.push(param('callbackUrl', callback()));
      const cookies = [...(rng.chance(0.5) ? [fx.oauth.sessionCookie] : []), ...(rng.chance(0.2) ? [`next-auth.callback-url=${pct(callback())}`] : [])];
      if (cookies.length > 0) setHeader(d, 'cookie', cookies.join('; '));
      return d;
    }
    case 'POST /api/auth/[...nextauth]':
      d.path = '/api/auth/signout';
      formBody(d, { csrfToken: rng.string(64, '0123456789abcdef'), callbackUrl: rng.chance(0.7) ? fx.origin : callbackUrl(rng, fx) });
      setHeader(d, 'cookie', fx.oauth.sessionCookie);
      return d;
    case 'POST /api/webhooks/stripe': {
      const payload = JSON.stringify({
        id: `evt_${rng.string(16)}`,
        object: 'event',
        type: rng.pick(['account.updated', 'payout.paid', 'transfer.created']),
        data: { object: { id: `acct_${rng.string(16)}`, object: 'account', payouts_enabled: rng.chance(0.5), capabilities: { transfers: 'active' } } },
      });
      d.body = payload;
      setHeader(d, 'content-type', 'application/json');
      // Most signed as Stripe signs; the rest forged, or unsigned.
      if (rng.chance(0.7)) setHeader(d, 'stripe-signature', fx.stripeSignature(payload));
      else if (rng.chance(0.5)) setHeader(d, 'stripe-signature', `t=${Math.floor(Date.now() / 1000)},v1=${rng.string(64, '0123456789abcdef')}`);
      return d;
    }
    case 'POST /mcp':
    case 'POST /docs/mcp': {
      const account = t.route === '/mcp';
      jsonBody(d, rng.chance(0.15) ? Array.from({ length: rng.int(1, 4) }, () => mcpMessage(rng, fx, account)) : mcpMessage(rng, fx, account));
      setHeader(d, 'accept', ACCEPT_MCP);
      if (rng.chance(0.5)) setHeader(d, 'mcp-protocol-version', rng.pick(['2025-06-18', '2025-03-26']));
      return d;
    }
    case 'POST /a2a':
      jsonBody(d, a2aMessage(rng));
      setHeader(d, 'a2a-version', '1.0');
      return d;
    case 'POST /agent/identity':
      jsonBody(d, { type: 'anonymous', ...(rng.chance(0.3) ? { name: 'fuzz agent' } : {}) });
      return d;
    case 'GET /markdown/[[...slug]]':
      // The twins are reached as Next rewrites them: `<page>.md`, or `Accept: text/markdown`.
      if (rng.chance(0.6)) {
        const page = rng.pick(fx.pages);
        if (rng.chance(0.5)) d.path = page === '/' ? '/index.md' : `${page}.md`;
        else {
          d.path = page;
          setHeader(d, 'accept', 'text/markdown');
        }
      }
      return d;
    default:
      schemaQuery(rng, d, op, fx);
      schemaBody(rng, d, op, fx);
      return d;
  }
}

// ── Mutations ────────────────────────────────────────────────────────────────────────────────

const long = (n: number, c = 'a') => c.repeat(n);

/** Query values as sent (already percent-encoded, or deliberately not). */
const QUERY_VALUES: readonly string[] = [
  '',
  '0',
  '-1',
  '1',
  '-0',
  '00',
  '007',
  '2',
  '5',
  '7',
  '19',
  '20',
  '21',
  '30',
  '49',
  '50',
  '51',
  '90',
  '99',
  '100',
  '101',
  '2147483648',
  '9007199254740993',
  '999999999999',
  '1000000000000',
  '1e3',
  '1.5',
  '0.0',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '%205',
  '5%20',
  '%2B5',
  '+5',
  '%EF%BC%91%EF%BC%92',
  long(199),
  long(200),
  long(201),
  long(499),
  long(500),
  long(501),
  long(512),
  long(513),
  long(4096),
  '%20%20%20',
  '+',
  '%2B',
  '%00',
  'a%00b',
  '%F0%9F%98%80',
  '%C3%A9',
  '%E2%80%AE',
  '%ED%A0%80',
  '%FF',
  '%C0%AE',
  '%',
  '%zz',
  '%%',
  '%0D%0A',
  'null',
  'true',
  '[]',
  '{}',
  '%3Cscript%3E',
  "'%20or%201%3D1--",
  '..%2F..%2Fetc%2Fpasswd',
  'all',
  'active',
  'paused',
  'publisher',
  'ALL',
  'all%00',
  'development',
  'production',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'f'.repeat(64),
  'F'.repeat(64),
  '0'.repeat(63),
  '0'.repeat(65),
];

const UNKNOWN_PARAMS = [
  'x',
  'limit[]',
  '__proto__',
  'constructor',
  'toString',
  '',
  '%00',
  'q%00',
  'a'.repeat(300),
  'callback',
  'callbackUrl',
  'format',
  'fields',
];

function mutateQuery(rng: Rng, d: Draft, t: Target): void {
  const names = queryNames(t.operation);
  const name = names.length > 0 && rng.chance(0.8) ? rng.pick(names) : rng.pick(UNKNOWN_PARAMS);
  const encoded = pct(name);
  const without = () => d.query.filter((p) => p.split('=')[0] !== encoded);
  switch (rng.int(0, 8)) {
    case 0:
    case 1:
    case 2:
      d.query = [...without(), `${encoded}=${rng.pick(QUERY_VALUES)}`];
      break;
    case 3:
      d.query = without();
      break;
    case 4:
      d.query.push(`${encoded}=${rng.pick(QUERY_VALUES)}`, `${encoded}=${rng.pick(QUERY_VALUES)}`);
      break;
    case 5:
      d.query = [...without(), encoded];
      break;
    case 6:
      d.query.push(rng.pick(['&', '=', '==', '&&', ';', '=x', 'a=b=c', '%26%3D']));
      break;
    case 7:
      for (let i = 0, n = rng.int(50, 300); i < n; i++) d.query.push(`p${i}=${i}`);
      break;
    default:
      d.query = [...without(), `${encoded}=${rng.string(rng.int(2000, 9000))}`];
  }
  d.tags.push('query');
}

/** A JSON value with one node changed: another type, removed, or a key added. */
function mutateJson(rng: Rng, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || (depth > 0 && rng.chance(0.3))) {
    return rng.pick<unknown>([null, true, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, '', 'x', '\u0000', '\ud800', long(70), [], {}, [value], { value }]);
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || rng.chance(0.2)) return rng.chance(0.5) ? [] : [...value, randomJson(rng, 2)];
    const i = rng.int(0, value.length - 1);
    return value.map((v, j) => (j === i ? mutateJson(rng, v, depth + 1) : v));
  }
  const entries = Object.entries(value);
  if (entries.length === 0 || rng.chance(0.15)) return { ...value, [rng.pick(['__proto__', 'constructor', 'extra', '', 'id'])]: randomJson(rng, 2) };
  const [key] = rng.pick(entries);
  if (rng.chance(0.2)) {
    const copy = { ...(value as Record<string, unknown>) };
    delete copy[key];
    return copy;
  }
  return { ...value, [key]: mutateJson(rng, (value as Record<string, unknown>)[key], depth + 1) };
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  ' application/json ',
  'application/jsonx',
  'application/ld+json',
  'json',
  '',
  'text/json',
  'application/json, text/plain',
  '*/*',
];

function bodyText(d: Draft): string {
  return d.body === undefined ? '' : typeof d.body === 'string' ? d.body : Buffer.from(d.body).toString('latin1');
}

function mutateBody(rng: Rng, d: Draft, t: Target): void {
  if (d.method === 'GET' || d.method === 'HEAD') {
    // A Fetch Request cannot carry a body on GET or HEAD: mutate something that can be expressed.
    mutateQuery(rng, d, t);
    return;
  }
  const text = bodyText(d);
  const form = t.operation?.bodyType === 'form';
  switch (rng.int(0, 15)) {
    case 0:
      d.body = text.slice(0, rng.int(0, Math.max(0, text.length - 1)));
      break;
    case 1:
    case 2: {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = {};
      }
      try {
        d.body = JSON.stringify(mutateJson(rng, parsed));
      } catch {
        // Nested too deep to copy (an earlier mutation): make it deeper still.
        d.body = `[${text}]`;
      }
      break;
    }
    case 3: {
      const depth = rng.pick([100, 1000, 5000, 20_000, 32_000]);
      d.body = rng.chance(0.5)
        ? `${'['.repeat(depth)}${']'.repeat(depth)}`
        : `${'{"a":'.repeat(Math.min(depth, 12_000))}1${'}'.repeat(Math.min(depth, 12_000))}`;
      break;
    }
    case 4: {
      // Within the 64 KiB cap, or just over it.
      const n = rng.pick([1000, 10_000, 30_000, 33_000]);
      const item = rng.pick(['0', '{}', '"x"', '{"path":"/api/v1/pricing"}']);
      d.body = rng.chance(0.5)
        ? `[${Array(n).fill(item).join(',')}]`
        : `{"requests":[${Array(Math.min(n, 3000)).fill(item).join(',')}],"events":[${Array(Math.min(n, 1500)).fill(item).join(',')}]}`;
      break;
    }
    case 5:
      d.body = `{"pad":"${long(rng.pick([65_520, 65_536, 70_000, 1_100_000]), 'x')}"}`;
      break;
    case 6:
      setHeader(d, 'content-type', rng.pick(CONTENT_TYPES));
      break;
    case 7:
      if (rng.chance(0.5)) deleteHeader(d, 'content-type');
      d.body = rng.pick(['', 'hello', '<xml/>', 'undefined', 'NaN', '{', '}', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '\u0000', ' ']);
      break;
    case 8:
      d.body = rng.pick(['null', '0', '"x"', 'true', '[]', '{}', '1e999', '-0', '[null]', '[[]]', '[{}]']);
      break;
    case 9:
      d.body = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]);
      break;
    case 10:
      d.body = `\ufeff${text}`;
      break;
    case 11:
      d.body = text.replace(/"([^"\\]{1,40})"/, '"$1\\u0000\\ud800"');
      break;
    case 12:
      d.body = rng.pick([
        '{"__proto__":{"admin":true}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '{"a":1,"a":2}',
        '{"requests":null}',
        '{"events":{}}',
        '{"type":["anonymous"]}',
      ]);
      break;
    case 13:
      // Form garbage, to form endpoints above all.
      setHeader(d, 'content-type', 'application/x-www-form-urlencoded');
      d.body = rng.pick([
        'a=1&a=2',
        '%%%',
        '=x',
        'grant_type=',
        'grant_type=authorization_code&grant_type=authorization_code',
        `code=${long(5000)}`,
        'grant_type=%00',
        '&&&',
        'request=&decision=approve',
        `request=${pct(long(9000))}&decision=deny`,
        'decision=maybe&request=x',
        'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b.c',
        'grant_type=client_credentials',
        'grant_type=refresh_token&refresh_token=x',
        '%E0%A4%A',
        '+=+',
        'a%3D=%26',
      ]);
      break;
    case 14:
      if (form) {
        setHeader(d, 'content-type', 'application/json');
        d.body = '{"grant_type":"authorization_code"}';
      } else {
        // A declared length beyond the cap (a real client cannot lie the other way in process).
        setHeader(d, 'content-length', String(rng.pick([65_537, 10_000_000, 2 ** 53])));
      }
      break;
    default:
      d.body = `${text}${rng.pick([',', ']', '}', '"', '\\', '\n{"x":1}'])}`;
  }
  d.tags.push('body');
}

function jwt(header: object, claims: object, signature = ''): string {
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}.${signature}`;
}

function mutateCredential(rng: Rng, d: Draft, fx: Fixtures): void {
  const now = 1_790_000_000;
  const claims = {
    iss: fx.origin,
    sub: '00000000-0000-4000-8000-000000000001',
    aud: [`${fx.origin}/api/v1`, `${fx.origin}/mcp`],
    client_id: 'mcl_x',
    scope: 'profile:read apps:read earnings:read api_keys:read',
    iat: now,
    exp: now + 10 ** 9,
    jti: 'j',
  };
  const valid = rng.pick(fx.tokens.full);
  const [h, , s] = valid.split('.');
  const family = rng.int(0, 2);
  if (family === 0) {
    const value = rng.pick([
      () => `Bearer ${rng.string(rng.int(1, 64))}`,
      () => `Bearer ${jwt({ alg: 'none', typ: 'at+jwt' }, claims)}`,
      () => `Bearer ${jwt({ alg: 'none' }, claims, 'x')}`,
      () => `Bearer ${jwt({ alg: 'HS256', typ: 'at+jwt', kid: 'k' }, claims, rng.string(43))}`,
      () => `Bearer ${h}.${b64url(JSON.stringify(claims))}.${s}`,
      () => `Bearer ${valid.slice(0, -2)}`,
      () => `Bearer ${valid}x`,
      () => `Bearer ${fx.tokens.apiOnly}`,
      () => `Bearer ${fx.tokens.mcpOnly}`,
      () => `Bearer ${rng.pick(fx.tokens.scoped)}`,
      () => `Bearer ${fx.tokens.expired}`,
      () => `Bearer ${fx.tokens.foreignSigned}`,
      () => `Bearer ${fx.tokens.otherIssuer}`,
      () => `Bearer ${fx.tokens.deletedUser}`,
      () => `Bearer ${fx.tokens.assertion}`,
      () => `Basic ${Buffer.from('user:pass').toString('base64')}`,
      () => `bearer ${fx.tokens.sandbox}`,
      () => `BEARER   ${fx.tokens.sandbox}   `,
      () => `Bearer ${fx.tokens.sandbox} ${fx.tokens.sandbox}`,
      () => `Bearer ${fx.tokens.sandbox}, Bearer ${valid}`,
      () => 'Bearer',
      () => 'Bearer ',
      () => '',
      () => ' ',
      () => `Token ${fx.tokens.sandbox}`,
      () => `Bearer ${rng.pick(fx.sdk.keys)}`,
      () => `Bearer ${long(rng.pick([1000, 8000]), 'A')}`,
      () => `Bearer ${'a.'.repeat(50)}`,
      () => `Bearer ${b64url('{')}.${b64url('}')}.${b64url('x')}`,
      () => `Bearer ${jwt({ alg: 'ES256', typ: 'at+jwt', kid: '../../etc/passwd' }, { ...claims, exp: 'never', aud: 5 }, rng.string(86))}`,
      () => 'Bearer svc_sandbox=',
      () => `Bearer ${fx.tokens.sandbox}\u00e9`,
    ])();
    setHeader(d, 'authorization', value);
  } else if (family === 1) {
    const key = rng.pick(fx.sdk.keys);
    const value = rng.pick([
      () => '',
      () => key.slice(0, -1),
      () => `${key}x`,
      () => key.replace(/^pk_(live|test)_/, 'pk_prod_'),
      () => `pk_live_${rng.string(32)}`,
      () => `pk_test_${rng.string(32)}`,
      () => `${key.slice(0, 20)} ${key.slice(20)}`,
      () => `${key}, ${key}`,
      () => key.toUpperCase(),
      () => fx.sdk.revokedKey,
      () => fx.sdk.archivedKey,
      () => fx.sdk.originKey.key,
      () => fx.tokens.sandbox,
      () => long(5000, 'k'),
      () => `pk_live_${rng.string(31)}\u00e9`,
    ])();
    setHeader(d, 'x-api-key', value);
    if (rng.chance(0.4)) setHeader(d, 'origin', rng.pick([fx.sdk.originKey.origin, 'https://evil.example', 'null', fx.origin]));
  } else {
    const name = fx.oauth.sessionCookieName;
    setHeader(
      d,
      'cookie',
      rng.pick([
        `${name}=${rng.string(40)}`,
        `${name}=`,
        `${name}.0=${rng.string(100)}; ${name}.1=${rng.string(100)}`,
        `${name}=${jwt({ alg: 'dir', enc: 'A256GCM' }, { sub: 'x' }, rng.string(20))}`,
        `${fx.oauth.sessionCookie}; ${name}=other`,
        `${name}=${long(4000, 'c')}`,
        ';;;=;',
        'a',
        `next-auth.csrf-token=${rng.string(20)}`,
        `next-auth.callback-url=${pct(callbackUrl(rng, fx))}`,
        fx.oauth.sessionCookie,
      ]),
    );
  }
  d.tags.push('credential');
}

function mutateCursor(rng: Rng, d: Draft, t: Target, fx: Fixtures): void {
  if (!queryNames(t.operation).includes('cursor')) return mutateCredential(rng, d, fx);
  const base = t.route === '/api/v1/search' ? fx.cursors.search.cursor : fx.cursors.pages.cursor;
  const other = t.route === '/api/v1/search' ? fx.cursors.pages.cursor : fx.cursors.search.cursor;
  const [payload = '', mac = ''] = base.split('.');
  const forged = (p: object) => `${b64url(JSON.stringify(p))}.${mac}`;
  const i = rng.int(0, Math.max(0, base.length - 1));
  const cursor = rng.pick([
    () => `${base.slice(0, i)}${base[i] === 'A' ? 'B' : 'A'}${base.slice(i + 1)}`,
    () => base.slice(0, rng.int(0, base.length - 1)),
    () => `${base}.x`,
    () => `${mac}.${payload}`,
    () => other,
    () => forged({ b: 'x', o: -1 }),
    () => forged({ o: 1.5 }),
    () => forged({ o: 1e308 }),
    () => `${b64url('not json')}.${mac}`,
    () => `${b64url('null')}.${mac}`,
    () => '.',
    () => '..',
    () => long(512, 'c'),
    () => long(513, 'c'),
    () => `${payload}.`,
    () => `.${mac}`,
    () => '%00',
  ])();
  d.query = d.query.filter((p) => !p.startsWith('cursor='));
  if (t.route === '/api/v1/search' && !d.query.some((p) => p.startsWith('q='))) d.query.push(param('q', fx.cursors.search.q));
  d.query.push(cursor === '%00' ? 'cursor=%00' : param('cursor', cursor));
  d.tags.push('cursor');
}

function mutateHeaders(rng: Rng, d: Draft, fx: Fixtures): void {
  const [name, value] = rng.pick<[string, string]>([
    [
      'accept',
      rng.pick([
        'text/markdown',
        '*/*',
        'application/json',
        'text/event-stream',
        'text/html',
        'application/xml',
        '',
        'garbage;;q=x',
        long(4000, 'a'),
        ACCEPT_MCP,
      ]),
    ],
    ['origin', rng.pick(['null', 'https://evil.example', fx.origin, `${fx.origin}/`, 'http://127.0.0.1:8765', long(1000, 'o'), fx.sdk.originKey.origin])],
    ['content-type', rng.pick(CONTENT_TYPES)],
    ['idempotency-key', rng.pick(['', ' ', 'a b', long(255, 'k'), long(256, 'k'), 'ключ', '\u00e9', `fuzz-${rng.string(8)}`, 'x'])],
    ['mcp-protocol-version', rng.pick(['1999-01-01', '', '2025-06-18', 'latest', long(300, 'v')])],
    ['mcp-session-id', rng.pick(['abc', '', long(500, 's')])],
    ['a2a-version', rng.pick(['0.3', '1.0', '2.0', '', '1', 'x'])],
    ['a2a-extensions', rng.pick(['https://x.example/ext', ',,,', long(2000, 'e')])],
    ['x-forwarded-for', rng.pick(['1.2.3.4', 'garbage', '', ', , ,', '::ffff:10.0.0.1', `${long(300, '9')}`])],
    ['user-agent', rng.pick(['Googlebot/2.1 (+http://www.google.com/bot.html)', 'curl/8', '', long(3000, 'u'), 'HeadlessChrome'])],
    ['access-control-request-method', rng.pick(['PUT', 'GET', 'X'])],
    ['referer', rng.pick(['https://evil.example/', 'not a url'])],
    ['host', rng.pick(['evil.example', 'localhost:3000', '127.0.0.1', '[::1]:3000', '', 'a b'])],
  ]);
  setHeader(d, name, value);
  d.tags.push('header');
}

/** The body as JSON, or undefined when it is not JSON or is nested too deep to be written again. */
function parsedBody(d: Draft): unknown {
  try {
    const value: unknown = JSON.parse(bodyText(d));
    JSON.stringify(value);
    return value;
  } catch {
    return undefined;
  }
}

const ODD_IDS: readonly unknown[] = [null, 0, -1, 1.5, 2 ** 53 + 1, '', 'x'.repeat(300), {}, [], true, '1'];

/** A JSON-RPC message the servers may not expect: odd ids, versions, methods and params. */
function oddRpc(rng: Rng, kind: 'mcp' | 'a2a'): unknown {
  const id = rng.chance(0.6) ? rng.int(1, 1000) : rng.pick(ODD_IDS);
  const method = rng.pick(
    kind === 'mcp'
      ? [
          'initialize',
          'tools/list',
          'tools/call',
          'ping',
          'resources/list',
          'prompts/list',
          'completion/complete',
          'logging/setLevel',
          'notifications/cancelled',
          'sampling/createMessage',
          'rpc.discover',
          '',
          'TOOLS/LIST',
          'x'.repeat(500),
        ]
      : [
          'SendMessage',
          'GetTask',
          'CancelTask',
          'ListTasks',
          'SendStreamingMessage',
          'SubscribeToTask',
          'CreateTaskPushNotificationConfig',
          'GetTaskPushNotificationConfig',
          'GetExtendedAgentCard',
          'message/send',
          'tasks/get',
          '',
          'x'.repeat(500),
        ],
  );
  const params = rng.pick<unknown>([
    undefined,
    null,
    [],
    'x',
    {
      name: rng.pick(['whoami', 'search_docs', 'get_page', 'get_pricing', 'list_my_apps', 'nope', '', '__proto__']),
      arguments: rng.pick<unknown>([
        null,
        [],
        'x',
        { query: 'x'.repeat(5000) },
        { path: '../../../etc/passwd' },
        { path: 'https://evil.example/x' },
        { path: '/docs/%2e%2e/x' },
        { limit: -1 },
        { limit: 1e9 },
        { audience: 'nobody' },
        { payout_limit: 51 },
        { days: '8' },
        { placement_status: 'archived' },
        { environment: ['all'] },
      ]),
    },
    {
      message: rng.pick<unknown>([
        null,
        {},
        { role: 'ROLE_USER', parts: [] },
        { role: 'ROLE_AGENT', messageId: 'm', parts: [{ text: '' }] },
        { role: 'ROLE_USER', messageId: rng.uuid(), parts: [{ text: 'x'.repeat(600) }] },
        { role: 'ROLE_USER', messageId: rng.uuid(), parts: [{ data: { a: 1 } }, { url: 'https://x' }, { raw: 'AAAA' }] },
        { role: 'x', messageId: 1, parts: 'no' },
        { role: 'ROLE_USER', messageId: rng.uuid(), taskId: rng.uuid(), contextId: 'c', parts: [{ text: 'pricing' }] },
      ]),
      configuration: rng.pick<unknown>([undefined, { blocking: false }, { historyLength: -1 }, { pushNotificationConfig: { url: 'http://127.0.0.1/' } }]),
    },
    { id: rng.pick<unknown>([rng.uuid(), '', 'x'.repeat(1000), 5, null]), historyLength: rng.pick<unknown>([undefined, -1, 1e9, 'x']) },
    {
      protocolVersion: rng.pick<unknown>(['1999-01-01', '', 5, null]),
      capabilities: rng.pick<unknown>([{}, null, 'x']),
      clientInfo: rng.pick<unknown>([{}, null, { name: 'x'.repeat(1000), version: 1 }]),
    },
  ]);
  return {
    ...(rng.chance(0.9) ? { jsonrpc: rng.chance(0.85) ? '2.0' : rng.pick<unknown>(['1.0', 2, null, '']) } : {}),
    ...(rng.chance(0.85) ? { id } : {}),
    ...(rng.chance(0.95) ? { method } : {}),
    ...(params === undefined ? {} : { params }),
  };
}

/** Sub-request paths a batch may be sent. */
const BATCH_PATHS = [
  '/api/v1/batch',
  '/api/v1',
  '/api/v1/openapi.json',
  '/api/v1/../v1/pricing',
  '/api/v1/%2e%2e/x',
  '/api/v1/search?q=%',
  '/api/v1/search?q=a&q=b',
  'http://evil.example/api/v1/pricing',
  '//evil.example/api/v1/pricing',
  '/api/v1/me#frag',
  '/api/v1/me?x=%zz',
  '/api/v1/pages?cursor=.',
  '/api/v1/pricing\\..',
  '/api/v1/me\u0000',
  `/api/v1/${'a'.repeat(5000)}`,
  '',
  '/',
  'api/v1/me',
  '/api/v1/me/earnings?payout_limit=-1',
  '/api/v1/me/earnings/daily?app_id=00000000-0000-0000-0000-000000000000',
  '/functions/v1/validate-key',
  `/api/v1/search?q=${'é'.repeat(300)}`,
];

/** Mutations that know what the route takes: JSON-RPC, batches, events, data, OAuth forms and authorization requests. */
function mutateSemantic(rng: Rng, d: Draft, t: Target, fx: Fixtures): void {
  const key = `${t.method === 'HEAD' ? 'GET' : t.method} ${t.route}`;
  const body = parsedBody(d);
  switch (key) {
    case 'POST /mcp':
    case 'POST /docs/mcp':
    case 'POST /a2a': {
      const kind = t.route === '/a2a' ? 'a2a' : 'mcp';
      const one = () => (rng.chance(0.5) && body !== undefined ? body : oddRpc(rng, kind));
      d.body = JSON.stringify(
        rng.pick<() => unknown>([
          () => oddRpc(rng, kind),
          () => oddRpc(rng, kind),
          () => Array.from({ length: rng.int(2, 6) }, one),
          // The same id twice in one batch; a response beside a request; nothing but responses.
          () => [
            { ...(oddRpc(rng, kind) as object), id: 7 },
            { jsonrpc: '2.0', id: 7, method: kind === 'mcp' ? 'tools/list' : 'GetTask', params: kind === 'mcp' ? undefined : { id: rng.uuid() } },
          ],
          () => [
            { jsonrpc: '2.0', id: 1, result: {} },
            { jsonrpc: '2.0', id: 2, method: 'ping' },
          ],
          () => [{ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'x' } }],
          () => [],
          () => [[one()]],
          () =>
            Array.from({ length: rng.pick([20, 101, 500]) }, (_, i) => ({
              jsonrpc: '2.0',
              id: i,
              method: kind === 'mcp' ? 'ping' : 'GetTask',
              ...(kind === 'mcp' ? {} : { params: { id: rng.uuid() } }),
            })),
        ])(),
      );
      setHeader(d, 'content-type', 'application/json');
      break;
    }
    case 'POST /api/v1/batch': {
      const requests = Array.from({ length: rng.pick([0, 1, 3, 20, 21, 100]) }, (_, i) => ({
        path: rng.chance(0.5) ? rng.pick(BATCH_PATHS) : batchPath(rng, fx),
        ...(rng.chance(0.3) ? { method: rng.pick<unknown>(['GET', 'POST', 'get', null]) } : {}),
        ...(rng.chance(0.4) ? { id: rng.pick<unknown>([i, `r${i}`, 1, 'dup', 1.5, null, {}, 'x'.repeat(1000), -0]) } : {}),
      }));
      jsonBody(d, rng.chance(0.9) ? { requests } : { requests: requests[0] ?? null });
      break;
    }
    case 'POST /functions/v1/events': {
      const events = eventsOf(rng, fx, rng.int(1, 6)).map((e) =>
        rng.pick<() => unknown>([
          () => e,
          () => ({ ...e, token: `${e.token.slice(0, -3)}${rng.string(3)}` }),
          () => ({ ...e, token: e.token.split('.').slice(0, 3).join('.') }),
          () => ({ ...e, token: `${rng.uuid()}.${e.token.split('.').slice(1).join('.')}` }),
          () => ({ ...e, id: rng.pick(['', 'x'.repeat(101), 'a b', 'é', e.id]) }),
          () => ({ ...e, type: rng.pick<unknown>(['view', '', 'IMPRESSION', null]) }),
          () => ({
            ...e,
            viewability: {
              visible_share: rng.pick([-0.1, 1.0000001, 0, 1, 0.5]),
              visible_seconds: rng.pick([-1, 0, 86_400, 86_401, 1e308]),
              area_px: rng.pick([-1, 0, 242_500, 100_000_001, 1.5]),
            },
          }),
          () => ({ ...e, viewability: null }),
        ])(),
      );
      // Duplicates within one batch.
      if (rng.chance(0.3) && events.length > 0) events.push(events[0]);
      jsonBody(d, { events }, rng.chance(0.5) ? 'application/json' : 'text/plain');
      if (rng.chance(0.5)) deleteHeader(d, 'x-api-key');
      break;
    }
    case 'GET /functions/v1/click': {
      const token = rng.pick(fx.sdk.decisionTokens);
      d.query = [
        param(
          'token',
          rng.pick([
            `${token.slice(0, -2)}xx`,
            token.split('.').reverse().join('.'),
            `${rng.uuid()}.${token.split('.').slice(1).join('.')}`,
            token,
            'x'.repeat(300),
            'x'.repeat(301),
          ]),
        ),
      ];
      break;
    }
    case 'GET /functions/v1/ads':
      d.query = [
        param('placement_id', rng.pick([...fx.sdk.placements, ...fx.sdk.foreignPlacements, rng.uuid(), '00000000-0000-0000-0000-000000000000', 'x'])),
        ...(rng.chance(0.6) ? [param('session_id', rng.pick(['short', 'x'.repeat(64), 'x'.repeat(65), 'a b c d e', `s-${rng.string(10)}`]))] : []),
        ...(rng.chance(0.6) ? [param('keywords', rng.pick(['', ',', 'a,,b', 'UPPER', 'x'.repeat(201), Array(30).fill('w').join(','), 'ai,ai,ai']))] : []),
      ];
      break;
    case 'POST /functions/v1/data': {
      jsonBody(d, {
        subject_id: rng.pick([...fx.sdk.consentedSubjects, rng.hex(64)]),
        kind: rng.pick(['ai_interaction', 'ux_session', 'other']),
        records: Array.from({ length: rng.pick([0, 1, 50, 51]) }, () => ({
          id: rng.pick([`r-${rng.string(8)}`, 'dup', '', 'x'.repeat(101)]),
          data: rng.pick<unknown>([
            { prompt: 'x'.repeat(rng.pick([1, 8000, 8001])), response: 'y' },
            { prompt: 'a\u0000b', response: 'c' },
            { prompt: '\ud800', response: 'c' },
            {
              prompt: 'p',
              response: 'r',
              occurred_at: rng.pick(['1969-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+25:00']),
            },
            { started_at: '2026-01-01T00:00:00Z', duration_seconds: rng.pick([-1, 86_401, 0]), events: [{ t: -1, type: '' }] },
            { started_at: '2026-01-01T00:00:00Z', duration_seconds: 1, events: Array.from({ length: 501 }, () => ({ t: 0, type: 'x' })) },
            { started_at: '2026-01-01T00:00:00Z', duration_seconds: 1, events: [{ t: 0, type: 'click', extra: 1 }] },
            { nested: { k: '\u0000' } },
          ]),
        })),
      });
      break;
    }
    case 'POST /functions/v1/consents':
      jsonBody(d, {
        subject_id: rng.pick<unknown>([rng.hex(64), rng.hex(63), rng.hex(64).toUpperCase(), '', null]),
        purposes: rng.pick<unknown>([
          [],
          ['ai_interactions', 'ai_interactions'],
          ['ux_sessions', 'ai_interactions', 'ux_sessions'],
          ['everything'],
          'ai_interactions',
        ]),
        policy_version: rng.pick<unknown>(['v1', '', 'x'.repeat(65), 'a\u0000b', '\ud800', 5]),
        consented_at: rng.pick<unknown>([undefined, '1969-12-31T23:59:59Z', '9999-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '2026-13-01T00:00:00Z', 'now', 0]),
      });
      break;
    case 'POST /oauth/register':
      jsonBody(
        d,
        rng.pick<unknown>([
          {
            redirect_uris: rng.pick<unknown>([
              [],
              null,
              'https://x',
              Array(11).fill('https://client.example/cb'),
              ['javascript:alert(1)'],
              ['http://evil.example/cb'],
              ['https://client.example/cb#frag'],
              ['https://user:pass@client.example/'],
              ['com.example.app:/cb'],
              ['http://[::1]:8/cb'],
              ['x'.repeat(3000)],
            ]),
          },
          {
            redirect_uris: ['https://client.example/cb'],
            client_name: rng.pick<unknown>(['', 'x'.repeat(1000), '\u0000', '<b>bold</b>', 5, null, 'é😀\u202e']),
          },
          { redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: rng.pick<unknown>(['private_key_jwt', 'client_secret_jwt', '', null]) },
          {
            redirect_uris: ['https://client.example/cb'],
            grant_types: rng.pick<unknown>([['implicit'], ['refresh_token'], 'authorization_code', []]),
            response_types: rng.pick<unknown>([['token'], ['code', 'token'], 'code']),
          },
          {
            redirect_uris: ['https://client.example/cb'],
            scope: rng.pick<unknown>(['admin', '', 'profile:read profile:read', 5]),
            jwks: { keys: [{}] },
            software_statement: 'a.b.c',
          },
          { redirect_uris: ['https://client.example/cb'], client_uri: 'javascript:x', logo_uri: 'http://127.0.0.1/', contacts: ['x'], tos_uri: 5 },
        ]),
      );
      if (rng.chance(0.3)) setHeader(d, 'idempotency-key', rng.pick(['same-key', `k-${rng.string(6)}`]));
      break;
    case 'POST /oauth/token': {
      const form: Record<string, string> = {};
      if (rng.chance(0.9))
        form.grant_type = rng.pick([
          'authorization_code',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
          'client_credentials',
          'refresh_token',
          'password',
          '',
          'AUTHORIZATION_CODE',
        ]);
      if (rng.chance(0.6)) form.code = rng.pick([...fx.oauth.codes, '', 'x'.repeat(2000), rng.string(43), '\u0000']);
      if (rng.chance(0.6)) form.redirect_uri = rng.pick([fx.oauth.redirectUri, `${fx.oauth.redirectUri}/`, 'https://evil.example/cb', '']);
      if (rng.chance(0.6)) form.code_verifier = rng.pick([fx.oauth.verifier, rng.string(42), rng.string(129), '', 'é'.repeat(43)]);
      if (rng.chance(0.5))
        form.client_id = rng.pick([
          fx.oauth.publicClientId,
          fx.oauth.confidentialClient.id,
          'mcl_unknown',
          '',
          'https://client.example/metadata.json',
          'http://127.0.0.1/x',
          'mcl_\u0000',
          '\ud800',
        ]);
      if (rng.chance(0.2)) form.client_secret = rng.pick([fx.oauth.confidentialClient.secret, 'wrong', '']);
      if (rng.chance(0.3)) form.assertion = rng.pick([fx.tokens.assertion, rng.pick(fx.tokens.full), 'a.b.c', '']);
      if (rng.chance(0.3)) form.scope = rng.pick(['profile:read', 'admin', '', 'profile:read  apps:read']);
      if (rng.chance(0.3)) form.resource = rng.pick([`${fx.origin}/api/v1`, `${fx.origin}/mcp`, 'https://evil.example/', '', 'not a uri']);
      formBody(d, form);
      if (rng.chance(0.3)) {
        const { id, secret } = fx.oauth.confidentialClient;
        setHeader(
          d,
          'authorization',
          rng.pick([
            `Basic ${Buffer.from(`${id}:wrong`).toString('base64')}`,
            'Basic !!!',
            'Basic ',
            `Basic ${Buffer.from('nocolon').toString('base64')}`,
            `Basic ${Buffer.from('%zz:%zz').toString('base64')}`,
            `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
          ]),
        );
      }
      break;
    }
    case 'GET /oauth/authorize':
    case 'POST /oauth/authorize': {
      const params = new URLSearchParams(fx.oauth.authorizeQuery);
      const name = rng.pick(['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'scope', 'resource']);
      const value = rng.pick([
        null,
        '',
        'x',
        'token',
        'plain',
        'S256',
        'admin',
        'profile:read',
        `${fx.origin}/api/v1`,
        'https://evil.example',
        'x'.repeat(9000),
        'https://client.example/metadata.json',
        'mcl_unknown',
        '\u0000',
      ]);
      if (value === null) params.delete(name);
      else if (rng.chance(0.3)) params.append(name, value);
      else params.set(name, value);
      const query = params.toString();
      if (d.method === 'POST')
        formBody(d, {
          request: query,
          csrf_token: rng.chance(0.5) ? fx.oauth.csrf : rng.pick(['', '1.x', `1790000000.${'A'.repeat(43)}`]),
          decision: rng.pick(['approve', 'deny']),
        });
      else d.query = [query];
      break;
    }
    default:
      mutateBody(rng, d, t);
      return;
  }
  d.tags.push('semantic');
}

function mutateMethod(rng: Rng, d: Draft): void {
  d.method = rng.pick(HTTP_METHODS);
  if ((d.method === 'GET' || d.method === 'HEAD') && d.body !== undefined) d.body = undefined;
  d.tags.push('method');
}

/** A variant of the path a client may send for it: escapes, dot segments, slashes, case, garbage. */
export function encodedPath(rng: Rng, path: string): string {
  let p = path;
  for (let n = rng.int(1, 3); n > 0; n--) {
    const segments = p.split('/');
    const i = rng.int(1, Math.max(1, segments.length - 1));
    switch (rng.int(0, 13)) {
      case 0:
      case 1: {
        // Escape some unreserved characters (hex in either case): the same path, RFC 3986 §6.2.2.2.
        p = p.replace(/[A-Za-z0-9\-._~]/g, (c) =>
          rng.chance(0.3) ? `%${c.charCodeAt(0).toString(16)[rng.chance(0.5) ? 'toUpperCase' : 'toLowerCase']()}` : c,
        );
        break;
      }
      case 2:
        segments.splice(i, 0, rng.pick(['.', '%2e', '%2E']));
        p = segments.join('/');
        break;
      case 3:
        segments.splice(i, 0, rng.pick(['x', 'nope', 'api']), rng.pick(['..', '%2e%2e', '.%2E', '%2E.']));
        p = segments.join('/');
        break;
      case 4:
        p = p.replace(/\//g, (s) => (rng.chance(0.3) ? '//' : s));
        break;
      case 5:
        p = `${p}/`;
        break;
      case 6:
        p = segments.length > 2 ? `${segments.slice(0, i).join('/')}${rng.pick(['%2F', '%2f', '%5C'])}${segments.slice(i).join('/')}` : `${p}%2F`;
        break;
      case 7:
        segments[i] = (segments[i] ?? '').toUpperCase();
        p = segments.join('/');
        break;
      case 8:
        p = `${p}/${rng.pick(SEGMENTS)}`;
        break;
      case 9:
        p = `${p}${rng.pick(['.md', '.json', ';x=1', '%3Bx', '.', '..', '%20', '%00', '~'])}`;
        break;
      case 10:
        p = `${rng.pick(['/..', '/../..', '/%2e%2e', '/./', '//', '/\\'])}${p}`;
        break;
      case 11:
        p = p.replace(/\//g, (s) => (rng.chance(0.2) ? '\\' : s));
        break;
      case 12:
        segments[i] = `${segments[i] ?? ''}${rng.pick(['%zz', '%', '%e0%a4', '%C0%AE', '%FF', '%ED%A0%80', '%25'])}`;
        p = segments.join('/');
        break;
      default:
        segments[i] = `${segments[i] ?? ''}${rng.pick(['é', '%C3%A9', '😀', '%F0%9F%98%80', ' ', '%20', '"', '<', '`', '{', '|'])}`;
        p = segments.join('/');
    }
  }
  return p.startsWith('/') ? p : `/${p}`;
}

/**
 * A header value as a server receives it: Node reads header bytes as Latin-1, so a character
 * beyond it arrives as its UTF-8 bytes; CR, LF and NUL never arrive (the HTTP parser refuses them).
 */
export function onTheWire(value: string): string {
  const clean = value.replace(/[\r\n\0]/g, '');
  return /[^\x00-\xff]/.test(clean) ? Buffer.from(clean, 'utf8').toString('latin1') : clean;
}

// ── The request of an index ──────────────────────────────────────────────────────────────────

const HIGH_BUDGET_IPS = 250;

export function generateRequest(plan: Plan, index: number): FuzzRequest {
  const rng = Rng.forRequest(plan.seed, index);
  const { targets, fixtures: fx } = plan;
  const coverage = index < targets.length;
  let target: Target;
  if (coverage) target = targets[index]!;
  else {
    // Most requests go to a method the route declares (HEAD, which the kernel derives from GET, less often).
    const declared = targets.filter((t) => t.operation && t.method !== 'OPTIONS' && t.method !== 'HEAD');
    target = rng.chance(0.8) ? rng.pick(declared) : rng.pick(targets);
  }
  const d = wellFormed(rng, target, fx, coverage);
  let encodePath = false;
  if (!coverage) {
    const count = rng.weighted([
      [0, 10],
      [1, 45],
      [2, 30],
      [3, 15],
    ] as const);
    for (let m = 0; m < count; m++) {
      const family = rng.weighted([
        ['query', 16],
        ['body', 16],
        ['semantic', 16],
        ['credential', 18],
        ['cursor', 5],
        ['header', 10],
        ['method', 6],
        ['path', 13],
      ] as const);
      if (family === 'query') mutateQuery(rng, d, target);
      else if (family === 'body') mutateBody(rng, d, target);
      else if (family === 'semantic') mutateSemantic(rng, d, target, fx);
      else if (family === 'credential') mutateCredential(rng, d, fx);
      else if (family === 'cursor') mutateCursor(rng, d, target, fx);
      else if (family === 'header') mutateHeaders(rng, d, fx);
      else if (family === 'method') mutateMethod(rng, d);
      else encodePath = true;
    }
    if (d.tags.length > 1) d.tags.shift();
  }
  let path = d.path;
  if (encodePath) {
    path = encodedPath(rng, path);
    d.tags.push('path');
    if (d.tags[0] === 'valid') d.tags.shift();
  }
  const defaultBudget = !coverage && rng.chance(plan.defaultBudgetShare);
  const ip = defaultBudget ? plan.defaultBudgetIp : rng.chance(0.8) ? `198.51.100.${rng.int(1, HIGH_BUDGET_IPS)}` : `2001:db8::${rng.hex(4)}`;
  if (d.method === 'GET' || d.method === 'HEAD') d.body = undefined;
  return {
    index,
    intent: `${target.method} ${target.route}`,
    tags: d.tags,
    budget: defaultBudget ? 'default' : 'high',
    ip,
    method: d.method,
    target: d.query.length > 0 ? `${path}?${d.query.join('&')}` : path,
    headers: d.headers.map(([n, v]) => [n, onTheWire(v)]),
    ...(d.body === undefined ? {} : { body: d.body }),
  };
}

/** The request as text, to replay it: method, target, headers and body. */
export function describeRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : `<bytes ${Buffer.from(r.body).toString('hex')}>`;
  const shown = body.length > 600 ? `${body.slice(0, 600)}… (${body.length} characters)` : body;
  return [
    `#${r.index} [${r.tags.join('+')}] for ${r.intent}, ${r.budget} budget, peer ${r.ip}`,
    `${r.method} ${r.target.length > 600 ? `${r.target.slice(0, 600)}… (${r.target.length} characters)` : r.target}`,
    ...r.headers.map(([n, v]) => `${n}: ${v.length > 300 ? `${v.slice(0, 300)}… (${v.length} characters)` : v}`),
    ...(shown ? ['', shown] : []),
  ].join('\n');
}
