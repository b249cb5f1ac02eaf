import { randomBytes } from 'node:crypto';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { archiveApp, changePlacement, createPlacement, revokeApiKey } from '@/lib/publisher/writes';
import { routeOf, type HttpMethod } from '@/lib/platform/http/kernel';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { signDecisionToken } from '@/lib/ads/serving/tokens';
import { conversionTag, createConversionKey, revokeConversionKey } from '@/lib/ads/conversions/keys';
import type { Services } from '@/lib/services';
import { instrumented } from '../helpers/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { newApp, newKey } from '../helpers/sdk';
// Renamed: the React hooks lint rule takes any `use…` call for a hook.
import { makeServices, testServices, setTestServices } from '../helpers/services';
import { accessToken, expiredToken } from '../helpers/tokens';

/**
 * The published OpenAPI document against what the service really answers. Every operation the
 * document lists is called in process through its route module under app/, with the success
 * answers, the credentials it accepts and refuses, bad parameters, and (for batch) bodies good
 * and bad; each answer must have a documented status, the documented content type, a body valid
 * under the documented schema (checked by Ajv, an implementation independent of the zod schemas
 * the document is generated from) and the documented headers.
 *
 * Cases are derived from the document where it says enough (credentials from `security`, values
 * from the parameter schemas) and written out where it cannot (request bodies, follow-up pages).
 * An operation of the document that no case gets a success answer from fails the coverage test.
 */

type Json = Record<string, unknown>;
interface Ref {
  $ref?: string;
}
interface HeaderObject extends Ref {
  required?: boolean;
  schema?: Json;
}
interface MediaType {
  schema?: Json;
}
interface ResponseObject extends Ref {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, MediaType>;
}
interface Parameter extends Ref {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
type SecurityRequirement = Record<string, string[]>;
interface SecurityScheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: Ref & { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  security?: SecurityRequirement[];
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation> & Ref>;
  security?: SecurityRequirement[];
  components?: {
    headers?: Record<string, HeaderObject>;
    securitySchemes?: Record<string, SecurityScheme>;
  };
}

const HTTP_VERBS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ORIGIN = 'http://localhost:3000';
const CLIENT_IP = '192.0.2.91';
const SANDBOX = 'svc_sandbox';
const ctx = () => ({ params: Promise.resolve({}) });

// ---------------------------------------------------------------------------------------------
// The published document, fetched through its real route handler before the cases are made
// (they are derived from it).

type Handler = (request: Request, context: { params: Promise<Record<string, never>> }) => Response | Promise<Response>;

async function fetchPublished() {
  const openApiRoute = handlersOf('/api/v1/openapi.json', makeServices({ rateLimiter: new MemoryRateLimiter({ max: 1_000, windowSeconds: 60 }) }));
  const res = await openApiRoute.GET(new Request(`${ORIGIN}/api/v1/openapi.json`, { headers: { 'x-forwarded-for': CLIENT_IP } }), ctx());
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}: ${text.slice(0, 500)}`);
  return { status: res.status, contentType: res.headers.get('content-type'), doc: JSON.parse(text) as Doc };
}

const published = await fetchPublished();
const doc = published.doc;

// ---------------------------------------------------------------------------------------------
// JSON pointers into the document, and Ajv validators that resolve them.

const escapeToken = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const pointer = (...tokens: string[]) => tokens.map((t) => `/${escapeToken(t)}`).join('');

function at(ptr: string): unknown {
  let node: unknown = doc;
  for (const token of ptr.split('/').slice(1).map(unescapeToken)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Json)[token];
  }
  return node;
}

/** Follows local `$ref`s (OpenAPI Reference Objects) to the object and its pointer. */
function resolve<T extends Ref>(ptr: string): { ptr: string; value: T } {
  let value = at(ptr) as T | undefined;
  for (let hops = 0; value && typeof value.$ref === 'string'; hops++) {
    if (!value.$ref.startsWith('#/') || hops > 20) throw new Error(`${ptr}: unsupported $ref ${value.$ref}`);
    ptr = value.$ref.slice(1);
    value = at(ptr) as T | undefined;
  }
  if (value === undefined) throw new Error(`${ptr}: nothing at this pointer in the document`);
  return { ptr, value };
}

const DOC_ID = 'openapi';
// Not strict: the document's own fields (`openapi`, `paths`, `example`…) are not schema keywords.
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
addFormats(ajv);
// The whole document is one schema resource, so the `#/components/...` references inside it resolve.
ajv.addSchema({ ...(doc as unknown as Json), $id: DOC_ID });

const validators = new Map<string, ValidateFunction>();
function validatorAt(ptr: string): ValidateFunction {
  let v = validators.get(ptr);
  if (!v) {
    const fragment = ptr
      .split('/')
      .map((t) => encodeURIComponent(t))
      .join('/');
    v = ajv.compile({ $ref: `${DOC_ID}#${fragment}` });
    validators.set(ptr, v);
  }
  return v;
}

function ajvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} [schema ${e.schemaPath}]`).join('; ');
}

/** Validates `value` against the schema at `ptr`: the Ajv errors, or null. */
function validate(ptr: string, value: unknown): string | null {
  const v = validatorAt(ptr);
  return v(value) ? null : ajvErrors(v.errors);
}

/** A header or query value as its schema's type would read it (they travel as text). */
function coerce(raw: string, schemaPtr: string): unknown {
  const schema = resolve<Json & Ref>(schemaPtr).value;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

// ---------------------------------------------------------------------------------------------
// The operations of the document.

interface Op {
  key: string;
  path: string;
  method: string;
  ptr: string;
  op: Operation;
}

const OPERATIONS: Op[] = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([verb]) => HTTP_VERBS.includes(verb))
    .map(([verb, op]) => ({ key: `${verb.toUpperCase()} ${p}`, path: p, method: verb.toUpperCase(), ptr: pointer('paths', p, verb), op: op as Operation })),
);

function parametersOf(op: Op): { ptr: string; value: Parameter }[] {
  return (op.op.parameters ?? []).map((_, i) => resolve<Parameter>(`${op.ptr}/parameters/${i}`));
}

/** The documented response for a status: exact, then `4XX`-style, then `default`. */
function documentedResponse(op: Op, status: number): string | null {
  const responses = op.op.responses ?? {};
  for (const k of [String(status), `${String(status)[0]}XX`, 'default']) if (k in responses) return k;
  return null;
}

/** Every OAuth scope the document declares. */
const ALL_SCOPES = [
  ...new Set(
    Object.values((doc.components?.securitySchemes ?? {}) as Record<string, { flows?: Record<string, { scopes?: Json }> }>).flatMap((s) =>
      Object.values(s.flows ?? {}).flatMap((f) => Object.keys(f.scopes ?? {})),
    ),
  ),
];

/** Which security schemes an operation takes, by the schemes' types. */
function securityOf(op: Op) {
  const requirements = op.op.security ?? doc.security ?? [];
  const schemes = doc.components?.securitySchemes ?? {};
  const named = (test: (s: SecurityScheme) => boolean) => requirements.flatMap((r) => Object.keys(r)).filter((name) => schemes[name] && test(schemes[name]!));
  const oauth = named((s) => s.type === 'oauth2');
  return {
    /** No credential needed (no requirement, or an empty one). */
    anonymous: requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0),
    userTokens: oauth.length > 0,
    sandbox: named((s) => s.type === 'http' && s.scheme?.toLowerCase() === 'bearer').length > 0,
    scopes: [...new Set(requirements.flatMap((r) => oauth.flatMap((name) => r[name] ?? [])))],
    /** The header an SDK key goes in, when the operation takes one (an `apiKey` scheme in a header). */
    keyHeader: named((s) => s.type === 'apiKey' && s.in === 'header').map((name) => schemes[name]!.name!)[0],
  };
}

// ---------------------------------------------------------------------------------------------
// Route modules and calls.

const routeModules = new Map<string, Promise<Record<string, Handler>>>();

/** `/api/v1/me/apps` → `@/app/api/v1/me/apps/route`; `{id}` → `[id]`. */
function routeModule(urlPath: string): Promise<Record<string, Handler>> {
  let mod = routeModules.get(urlPath);
  if (!mod) {
    const dir = urlPath.replace(/\{([^}]+)\}/g, '[$1]');
    mod = import(/* @vite-ignore */ `@/app${dir}/route`) as Promise<Record<string, Handler>>;
    routeModules.set(urlPath, mod);
  }
  return mod;
}

interface CallInit {
  /** Path and query; the operation's path by default. */
  url?: string;
  /** A bearer token (or a whole Authorization value when it holds a space). */
  token?: string;
  headers?: Record<string, string>;
  body?: string;
  contentType?: string;
}

interface Answered {
  request: { method: string; url: string; headers: Record<string, string>; body?: string; what: string };
  status: number;
  headers: Headers;
  text: string;
}

interface Tools {
  call(init?: CallInit): Promise<Answered>;
  /** A real access token of a demo publisher. */
  user(scopes?: readonly string[], who?: 'demo' | 'demo2'): Promise<string>;
  expired(): Promise<string>;
  /** A real token whose audience is the MCP resource only. */
  mcpOnly(): Promise<string>;
  /** Runs `fn` while every database transaction fails. */
  outage<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` with a budget of `max` requests. */
  budget<T>(max: number, fn: () => Promise<T>): Promise<T>;
  /** An SDK key of a demo publisher, made in the console: working, revoked, or of an archived app. */
  sdkKey(state: 'active' | 'revoked' | 'archived-app', who?: 'demo' | 'demo2', environment?: 'production' | 'development'): Promise<string>;
  /** A placement of a new app of a demo publisher, active or paused, and a working key of that app, made in the console. */
  sdkPlacement(state: 'active' | 'paused', who?: 'demo' | 'demo2'): Promise<{ key: string; placementId: string }>;
  /** A fresh ad for demo's active placement, from the ads route (a call outside the case: not one of its answers). */
  sdkAd(): Promise<{ decision_id: string; token: string; click_url: string }>;
  /** A new subject with a current consent to `purposes` in the app of demo's working key, recorded through the consents route (outside the case), and its consent proof. */
  sdkConsent(purposes?: readonly string[]): Promise<{ subject: string; proof: string }>;
  /** A fresh ad clicked through its click URL (outside the case): the click id its landing page got, and the ad's advertiser. */
  sdkClick(): Promise<{ clickId: string; advertiserId: string }>;
  /** A conversions key of the advertiser's, made in its console: working or revoked. */
  conversionKey(advertiserId: string, state?: 'active' | 'revoked'): Promise<string>;
  /** The advertiser's conversion tag id. */
  conversionTag(advertiserId: string): Promise<string>;
}

interface Case {
  label: string;
  /** The status each call of the case is there to draw, in order (checks the case itself). */
  expect: number[];
  run(t: Tools): Promise<void>;
}

const query = (params: Record<string, string>) => {
  const qs = new URLSearchParams(params).toString();
  return qs ? `?${qs}` : '';
};

// ---------------------------------------------------------------------------------------------
// Cases derived from the document: credentials from `security`, values from the parameter schemas.

interface ParamSchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  example?: unknown;
}

const typeOf = (s: ParamSchema) => ([] as string[]).concat(s.type ?? [])[0];

/** A value the schema allows, for a required parameter. */
function sampleValue(s: ParamSchema): string {
  if (s.example !== undefined) return String(s.example);
  if (s.default !== undefined) return String(s.default);
  if (s.enum?.length) return String(s.enum[0]);
  if (typeOf(s) === 'integer' || typeOf(s) === 'number') return String(s.minimum ?? 1);
  return 'a'.repeat(Math.max(1, s.minLength ?? 1));
}

/** Allowed values worth a call each: every enum value, the integer bounds. */
function validValues(s: ParamSchema): string[] {
  if (s.enum?.length) return s.enum.map(String);
  if (typeOf(s) === 'integer' || typeOf(s) === 'number') return [s.minimum, s.maximum].filter((v) => v !== undefined).map(String);
  return [];
}

/** Values the schema refuses. */
function invalidValues(s: ParamSchema): string[] {
  if (s.enum?.length) return ['bogus', ''];
  if (typeOf(s) === 'integer' || typeOf(s) === 'number') {
    const out = ['abc', '1.5'];
    if (s.minimum !== undefined) out.push(String(s.minimum - 1));
    if (s.maximum !== undefined) out.push(String(s.maximum + 1));
    return out;
  }
  const out: string[] = [];
  if ((s.minLength ?? 0) >= 1) out.push('');
  if (s.maxLength !== undefined) out.push('a'.repeat(s.maxLength + 1));
  return out;
}

/**
 * Operations without a body whose cases are all written out too: their success needs what no
 * parameter schema can give (a placement of the key's own app, the token of an ad served, a subject
 * id matching a pattern), so the derived calls with sample values would only draw their 400s and 404s.
 */
const WRITTEN_ONLY = new Set([
  'GET /functions/v1/ads',
  'GET /functions/v1/click',
  'GET /functions/v1/consents',
  'DELETE /functions/v1/consents',
  'GET /functions/v1/conversions/tag',
]);

function derivedCases(op: Op): Case[] {
  // Operations with a request body have their cases written out below.
  if (op.op.requestBody || WRITTEN_ONLY.has(op.key)) return [];
  const sec = securityOf(op);
  const params = parametersOf(op)
    .filter(({ value }) => value.in === 'query')
    .map(({ ptr, value }) => ({ name: value.name, required: value.required === true, schema: resolve<ParamSchema & Ref>(`${ptr}/schema`).value }));
  const base: Record<string, string> = Object.fromEntries(params.filter((p) => p.required).map((p) => [p.name, sampleValue(p.schema)]));
  const scopes = sec.scopes;
  const scopeText = scopes.length ? scopes.join(' ') : 'every scope';
  /** The credential the parameter cases use: none when none is needed. */
  const good = async (t: Tools) =>
    sec.anonymous ? undefined : sec.userTokens ? t.user(scopes.length ? scopes : undefined) : sec.sandbox ? SANDBOX : undefined;
  /** The SDK key the parameter cases send, for an operation that takes one. */
  const key = sec.keyHeader;
  const goodKey = async (t: Tools): Promise<Record<string, string>> => (key ? { [key]: await t.sdkKey('active') } : {});
  const cases: Case[] = [];
  const success = (label: string, token: (t: Tools) => Promise<string | undefined>, params = base): Case => ({
    label,
    expect: [200],
    run: async (t) => void (await t.call({ url: op.path + query(params), token: await token(t), headers: await goodKey(t) })),
  });

  if (sec.anonymous) cases.push(success('no token', async () => undefined));
  if (sec.sandbox) cases.push(success('the sandbox token', async () => SANDBOX));
  if (sec.userTokens) {
    cases.push(success(`a user token with ${scopeText}`, (t) => t.user(scopes.length ? scopes : undefined)));
    cases.push(success(`another publisher's token with ${scopeText}`, (t) => t.user(scopes.length ? scopes : undefined, 'demo2')));
  }
  for (const p of params) {
    for (const v of validValues(p.schema)) {
      if (base[p.name] === v) continue;
      cases.push(success(`${p.name}=${v}`, good, { ...base, [p.name]: v }));
    }
    for (const v of invalidValues(p.schema)) {
      cases.push({
        label: `bad parameter ${p.name}=${v.length > 20 ? `${v.slice(0, 8)}…(${v.length} chars)` : JSON.stringify(v)}`,
        expect: [400],
        run: async (t) => void (await t.call({ url: op.path + query({ ...base, [p.name]: v }), token: await good(t), headers: await goodKey(t) })),
      });
    }
  }
  if (sec.userTokens || sec.sandbox) {
    const refused = (label: string, token: (t: Tools) => Promise<string | undefined>): Case => ({
      label,
      expect: [401],
      run: async (t) => void (await t.call({ url: op.path + query(base), token: await token(t) })),
    });
    if (!sec.anonymous) cases.push(refused('no token', async () => undefined));
    cases.push(refused('a malformed Authorization header', async () => 'Bearer not a token'));
    cases.push(refused('a token that is not a JWT', async () => 'not-a-jwt'));
    cases.push(refused('another scheme (Basic)', async () => 'Basic dXNlcjpwYXNz'));
    if (sec.userTokens) cases.push(refused('an expired token', (t) => t.expired()));
    if (sec.userTokens && scopes.length) {
      cases.push({
        label: `a token without ${scopeText} (insufficient scope)`,
        expect: [403],
        run: async (t) => {
          const token = await t.user(ALL_SCOPES.filter((s) => !scopes.includes(s)));
          await t.call({ url: op.path + query(base), token });
        },
      });
    }
    // An operation that needs a scope reads the user's data: a database outage must answer its 502.
    if (sec.userTokens && scopes.length) {
      cases.push({
        label: 'a user token while the database is down',
        expect: [502],
        run: async (t) => {
          const token = await t.user(scopes.length ? scopes : undefined);
          await t.outage(() => t.call({ url: op.path + query(base), token }));
        },
      });
    }
  }
  if (key) {
    const sent = (label: string, status: number, headers: (t: Tools) => Promise<Record<string, string>>, token?: string): Case => ({
      label,
      expect: [status],
      run: async (t) => void (await t.call({ url: op.path + query(base), token, headers: await headers(t) })),
    });
    cases.push(sent(`a production key in ${key}`, 200, async (t) => ({ [key]: await t.sdkKey('active') })));
    cases.push(sent(`another publisher's development key in ${key}`, 200, async (t) => ({ [key]: await t.sdkKey('active', 'demo2', 'development') })));
    cases.push(...keyRefusals(key, async () => ({ url: op.path + query(base) })));
  }
  cases.push({
    label: 'over the rate limit',
    expect: [429],
    run: async (t) => {
      const token = await good(t);
      const headers = await goodKey(t);
      await t.budget(0, () => t.call({ url: op.path + query(base), token, headers }));
    },
  });
  return cases;
}

/**
 * The SDK key's refusals (lib/identity/keys/directory.ts), for an operation that takes a key in `header`:
 * `request` is the rest of a request that `working` (demo's working key by default) would have
 * got a success for, so that each answer is the key's doing. With an `optional` key, a request
 * without one is not refused (a beacon), so no key and a key sent as a Bearer token are left out.
 */
function keyRefusals(
  header: string,
  request: (t: Tools) => Promise<CallInit>,
  options: { optional?: boolean; working?: (t: Tools) => Promise<string> } = {},
): Case[] {
  const working = options.working ?? ((t: Tools) => t.sdkKey('active'));
  const sent = (label: string, status: number, headers: (t: Tools) => Promise<Record<string, string>>): Case => ({
    label,
    expect: [status],
    run: async (t) => void (await t.call({ ...(await request(t)), headers: await headers(t) })),
  });
  const cases: Case[] = [];
  if (!options.optional) cases.push(sent(`no ${header}`, 401, async () => ({})));
  cases.push(sent(`an empty ${header}`, 401, async () => ({ [header]: '' })));
  cases.push(sent(`a malformed ${header}`, 401, async () => ({ [header]: 'pk_live_short' })));
  cases.push(sent(`an unknown key in ${header}`, 401, async () => ({ [header]: `pk_live_${'Z'.repeat(32)}` })));
  cases.push(sent(`the sandbox token in ${header}`, 401, async () => ({ [header]: SANDBOX })));
  if (!options.optional) {
    cases.push({
      label: 'a working key as a Bearer token instead',
      expect: [401],
      run: async (t) => void (await t.call({ ...(await request(t)), token: await working(t) })),
    });
  }
  cases.push(sent(`a revoked key in ${header}`, 403, async (t) => ({ [header]: await t.sdkKey('revoked') })));
  cases.push(sent(`a key of an archived app in ${header}`, 403, async (t) => ({ [header]: await t.sdkKey('archived-app') })));
  cases.push({
    label: 'a working key while the database is down',
    expect: [503],
    run: async (t) => {
      const init = { ...(await request(t)), headers: { [header]: await working(t) } };
      await t.outage(() => t.call(init));
    },
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Cases written out: follow-up pages, every case of an operation with a body (it is not derived),
// and the SDK operations of WRITTEN_ONLY.

const batchBody = (requests: unknown[]) => JSON.stringify({ requests });
const PUBLIC_SUBS = [{ path: '/api/v1/search?q=payout', id: 'search' }, { path: '/api/v1/pricing?audience=publisher' }, { path: '/api/v1/pages?limit=2' }];
const ACCOUNT_SUBS = [
  { path: '/api/v1/me', id: 'me' },
  { path: '/api/v1/me/apps?placement_status=active' },
  { path: '/api/v1/me/earnings?payout_limit=3', id: 7 },
  { path: '/api/v1/me/api-keys?environment=all' },
];

function nextPage(first: string): Case {
  return {
    label: `${first.split('?')[1]}, then the next page by its cursor`,
    expect: [200, 200],
    run: async (t) => {
      const a = await t.call({ url: first });
      const cursor = (JSON.parse(a.text) as { pagination?: { next_cursor?: string | null } }).pagination?.next_cursor;
      if (!cursor) throw new Error(`${first} gave no next_cursor: ${a.text.slice(0, 300)}`);
      await t.call({ url: `${first}&cursor=${encodeURIComponent(cursor)}` });
    },
  };
}

// The SDK surface's requests.
const API_KEY = 'x-api-key';
const adsUrl = (placementId: string, extra: Record<string, string> = {}) => `/functions/v1/ads${query({ placement_id: placementId, ...extra })}`;
const clickUrl = (token: string) => `/functions/v1/click${query({ token })}`;
/** The path and query of an ad's `click_url`, as a browser opens it. */
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
/** A decision token of the right form signed with another key: no ad of this service's. */
const FOREIGN_TOKEN = signDecisionToken(Buffer.alloc(32, 9), {
  decisionId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  expiresAt: 4_102_444_800,
});
/** A subject id as an app makes it: the SHA-256 of its user id, in hex (a random one here). */
const newSubject = () => randomBytes(32).toString('hex');
const eventsJson = (token: string, events: Record<string, unknown>[] = [{ type: 'impression', viewability: { visible_share: 0.8, visible_seconds: 1.5 } }]) =>
  JSON.stringify({ events: events.map((e) => ({ id: `evt-${randomBytes(6).toString('hex')}`, token, ...e })) });
const consentJson = (subject: string, purposes: readonly string[] = ['ai_interactions'], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ subject_id: subject, purposes, policy_version: 'v1', ...extra });
const AI_RECORDS = [{ id: 'r1', data: { prompt: 'hi', response: 'hello' } }];
const dataJson = (subject: string, records: unknown[] = AI_RECORDS, kind = 'ai_interaction') => JSON.stringify({ subject_id: subject, kind, records });
const consentsUrl = (subject: string) => `/functions/v1/consents${query({ subject_id: subject })}`;
const PROOF = 'x-consent-proof';
/** A subject's consent proof, as a header. */
const proofOf = (proof: string) => ({ [PROOF]: proof });
/** A proof of the right form that no subject has. */
const FORGED_PROOF = `cp_${'A'.repeat(43)}`;
/** A consent of a subject, its proof sent: the consents route as its owner calls it. */
const owned = async (t: Tools, purposes?: readonly string[]) => {
  const { subject, proof } = await t.sdkConsent(purposes);
  return { subject, headers: proofOf(proof) };
};
/** An RFC 3339 time with an offset, `ms` before now. */
const withOffset = (ms: number) => `${new Date(Date.now() - ms + 3_600_000).toISOString().slice(0, 19)}+01:00`;
/** A click id of the right form signed with another key: no click of this service's. */
const FOREIGN_CLICK_ID = `00000000-0000-4000-8000-000000000003.${'A'.repeat(22)}`;
/** A conversion tag id of the right form that nobody has. */
const UNKNOWN_TAG = `ct_${'Z'.repeat(24)}`;
const conversionJson = (clickId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    event_id: `order-${randomBytes(6).toString('hex')}`,
    click_id: clickId,
    name: 'purchase',
    value_usd: 19.99,
    occurred_at: new Date().toISOString(),
    ...extra,
  });
const tagJson = (tag: string, clickId: string) => JSON.stringify({ tag, click_id: clickId, name: 'signup' });
const tagUrl = (params: Record<string, string>) => `/functions/v1/conversions/tag${query(params)}`;
/** Over the 64 KiB every body but data's may have. */
const OVER_64_KIB = 'a'.repeat(70_000);

/** An ad request: the key and placement `pick` gives, and `extra` parameters. */
const adCase = (
  label: string,
  status: number,
  pick: (t: Tools) => Promise<{ key: string; placementId: string }>,
  extra: Record<string, string> = {},
): Case => ({
  label,
  expect: [status],
  run: async (t) => {
    const { key, placementId } = await pick(t);
    await t.call({ url: adsUrl(placementId, extra), headers: { [API_KEY]: key } });
  },
});
/** An ad request with a body (POST /functions/v1/ads). */
const postAdCase = (
  label: string,
  status: number,
  pick: (t: Tools) => Promise<{ key: string; placementId: string }>,
  extra: Record<string, unknown> = {},
): Case => ({
  label,
  expect: [status],
  run: async (t) => {
    const { key, placementId } = await pick(t);
    await t.call({ body: JSON.stringify({ placement_id: placementId, ...extra }), headers: { [API_KEY]: key } });
  },
});
const active = (t: Tools) => t.sdkPlacement('active');
const activeKey = async (t: Tools) => (await active(t)).key;
/** Demo's working key with `url` (a GET) or `body` (a POST). */
const keyed = (label: string, status: number, init: (t: Tools) => Promise<CallInit>): Case => ({
  label,
  expect: [status],
  run: async (t) => {
    const request = await init(t);
    await t.call({ ...request, headers: { ...request.headers, [API_KEY]: await t.sdkKey('active') } });
  },
});
const overBudget = (init: (t: Tools) => Promise<CallInit>): Case => ({
  label: 'over the rate limit',
  expect: [429],
  run: async (t) => {
    const request = await init(t);
    await t.budget(0, () => t.call(request));
  },
});

const WRITTEN: Record<string, Case[]> = {
  'GET /api/v1': [{ label: 'a token for the MCP resource only', expect: [401], run: async (t) => void (await t.call({ token: await t.mcpOnly() })) }],
  'GET /api/v1/search': [
    nextPage('/api/v1/search?q=payout&limit=2'),
    { label: 'a cursor this API did not issue', expect: [400], run: async (t) => void (await t.call({ url: '/api/v1/search?q=payout&cursor=forged.cursor' })) },
    { label: 'q given twice', expect: [400], run: async (t) => void (await t.call({ url: '/api/v1/search?q=payout&q=ads' })) },
  ],
  'GET /api/v1/me/campaigns': [
    {
      label: 'the sandbox token, limit=2, then the next page by its cursor',
      expect: [200, 200],
      run: async (t) => {
        const a = await t.call({ url: '/api/v1/me/campaigns?limit=2', token: SANDBOX });
        const cursor = (JSON.parse(a.text) as { pagination?: { next_cursor?: string | null } }).pagination?.next_cursor;
        if (!cursor) throw new Error(`the sandbox's campaigns gave no next_cursor: ${a.text.slice(0, 300)}`);
        await t.call({ url: `/api/v1/me/campaigns?limit=2&cursor=${encodeURIComponent(cursor)}`, token: SANDBOX });
      },
    },
    {
      label: 'a cursor this API did not issue',
      expect: [400],
      run: async (t) => void (await t.call({ url: '/api/v1/me/campaigns?cursor=forged.cursor', token: SANDBOX })),
    },
  ],
  'GET /api/v1/me/licenses': [
    {
      label: 'the sandbox token, limit=2, then the next page by its cursor',
      expect: [200, 200],
      run: async (t) => {
        const a = await t.call({ url: '/api/v1/me/licenses?limit=2', token: SANDBOX });
        const cursor = (JSON.parse(a.text) as { pagination?: { next_cursor?: string | null } }).pagination?.next_cursor;
        if (!cursor) throw new Error(`the sandbox's licenses gave no next_cursor: ${a.text.slice(0, 300)}`);
        await t.call({ url: `/api/v1/me/licenses?limit=2&cursor=${encodeURIComponent(cursor)}`, token: SANDBOX });
      },
    },
    {
      label: 'a cursor this API did not issue',
      expect: [400],
      run: async (t) => void (await t.call({ url: '/api/v1/me/licenses?cursor=forged.cursor', token: SANDBOX })),
    },
  ],
  'GET /api/v1/pages': [
    nextPage('/api/v1/pages?limit=5'),
    { label: 'a cursor this API did not issue', expect: [400], run: async (t) => void (await t.call({ url: '/api/v1/pages?cursor=forged.cursor' })) },
  ],
  'POST /api/v1/batch': [
    {
      label: 'a valid body of public sub-requests, no token',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody(PUBLIC_SUBS) })),
    },
    {
      label: 'a valid body of account and public sub-requests, a user token',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody([...ACCOUNT_SUBS, ...PUBLIC_SUBS]), token: await t.user() })),
    },
    {
      label: 'a sandbox batch (svc_sandbox)',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody([...ACCOUNT_SUBS, ...PUBLIC_SUBS]), token: SANDBOX })),
    },
    {
      label: 'sub-requests that fail (bad parameters, no token for account paths)',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody([{ path: '/api/v1/search?q=' }, { path: '/api/v1/pages?limit=101' }, ...ACCOUNT_SUBS]) })),
    },
    {
      label: 'a token that is not a JWT, no Idempotency-Key (the sub-requests answer 401)',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody(ACCOUNT_SUBS), token: 'not-a-jwt' })),
    },
    {
      label: 'a token without apps:read (the sub-request answers 403)',
      expect: [200],
      run: async (t) => void (await t.call({ body: batchBody(ACCOUNT_SUBS), token: await t.user(['profile:read', 'earnings:read', 'api_keys:read']) })),
    },
    {
      label: 'a user token while the database is down (the account sub-requests answer 502)',
      expect: [200],
      run: async (t) => {
        const token = await t.user();
        await t.outage(() => t.call({ body: batchBody(ACCOUNT_SUBS), token }));
      },
    },
    { label: 'an invalid body: no requests', expect: [400], run: async (t) => void (await t.call({ body: batchBody([]) })) },
    { label: 'an invalid body: {}', expect: [400], run: async (t) => void (await t.call({ body: '{}' })) },
    { label: 'an invalid body: not JSON', expect: [400], run: async (t) => void (await t.call({ body: '{"requests": [' })) },
    {
      label: 'an invalid body: 21 requests',
      expect: [400],
      run: async (t) => void (await t.call({ body: batchBody(Array.from({ length: 21 }, () => ({ path: '/api/v1/pricing' }))) })),
    },
    {
      label: 'an invalid body: a path batch may not call',
      expect: [400],
      run: async (t) => void (await t.call({ body: batchBody([{ path: '/api/v1/openapi.json' }]) })),
    },
    {
      label: 'an invalid body: method POST',
      expect: [400],
      run: async (t) => void (await t.call({ body: batchBody([{ path: '/api/v1/pricing', method: 'POST' }]) })),
    },
    {
      label: 'a text/plain body',
      expect: [415],
      run: async (t) => void (await t.call({ body: batchBody(PUBLIC_SUBS), contentType: 'text/plain' })),
    },
    {
      label: 'a body over 64 KiB',
      expect: [413],
      run: async (t) => void (await t.call({ body: batchBody([{ path: `/api/v1/search?q=${'a'.repeat(70_000)}` }]) })),
    },
    {
      label: 'an Idempotency-Key replay (same key, same body, a user token)',
      expect: [200, 200],
      run: async (t) => {
        const token = await t.user();
        const init = { body: batchBody([...ACCOUNT_SUBS, ...PUBLIC_SUBS]), token, headers: { 'idempotency-key': `replay-${Math.random()}` } };
        await t.call(init);
        await t.call(init);
      },
    },
    {
      label: 'an Idempotency-Key replay with the sandbox token',
      expect: [200, 200],
      run: async (t) => {
        const init = { body: batchBody(ACCOUNT_SUBS), token: SANDBOX, headers: { 'idempotency-key': `sandbox-${Math.random()}` } };
        await t.call(init);
        await t.call(init);
      },
    },
    {
      label: 'an Idempotency-Key reused with another body',
      expect: [200, 400],
      run: async (t) => {
        const headers = { 'idempotency-key': `reuse-${Math.random()}` };
        await t.call({ body: batchBody(PUBLIC_SUBS), headers });
        await t.call({ body: batchBody(PUBLIC_SUBS.slice(1)), headers });
      },
    },
    {
      label: 'an Idempotency-Key that is not visible ASCII',
      expect: [400],
      run: async (t) => void (await t.call({ body: batchBody(PUBLIC_SUBS), headers: { 'idempotency-key': 'has space' } })),
    },
    {
      label: 'an Idempotency-Key with a token that is not a JWT',
      expect: [401],
      run: async (t) =>
        void (await t.call({ body: batchBody(ACCOUNT_SUBS), token: 'not-a-jwt', headers: { 'idempotency-key': `bad-token-${Math.random()}` } })),
    },
    {
      label: 'over the rate limit (no budget left)',
      expect: [429],
      run: async (t) => void (await t.budget(0, () => t.call({ body: batchBody(PUBLIC_SUBS) }))),
    },
    {
      label: 'over the rate limit (a budget of 2, a batch of 3 sub-requests)',
      expect: [429],
      run: async (t) => void (await t.budget(2, () => t.call({ body: batchBody(PUBLIC_SUBS) }))),
    },
  ],
  'GET /functions/v1/ads': [
    adCase('a key and an active placement of its app', 200, active),
    adCase('with session_id and keywords', 200, active, { session_id: 'session-0001', keywords: 'writing,notes' }),
    adCase("another publisher's key and a placement of its own app", 200, (t) => t.sdkPlacement('active', 'demo2')),
    adCase("a paused placement of the key's app", 204, (t) => t.sdkPlacement('paused')),
    adCase("another publisher's placement", 404, async (t) => ({
      key: await activeKey(t),
      placementId: (await t.sdkPlacement('active', 'demo2')).placementId,
    })),
    adCase('a placement id no app has', 404, async (t) => ({ key: await activeKey(t), placementId: '00000000-0000-4000-8000-000000000000' })),
    { label: 'no placement_id', expect: [400], run: async (t) => void (await t.call({ headers: { [API_KEY]: await activeKey(t) } })) },
    adCase('a malformed placement_id', 400, async (t) => ({ key: await activeKey(t), placementId: 'nope' })),
    adCase('bad parameter session_id="short"', 400, active, { session_id: 'short' }),
    adCase('bad parameter keywords="Caps!"', 400, active, { keywords: 'Caps!' }),
    ...keyRefusals(API_KEY, async (t) => ({ url: adsUrl((await active(t)).placementId) }), { working: activeKey }),
    overBudget(async (t) => ({ url: adsUrl((await active(t)).placementId), headers: { [API_KEY]: await activeKey(t) } })),
  ],
  'POST /functions/v1/ads': [
    postAdCase('a conversation that fits a campaign', 200, active, { context: { messages: [{ role: 'user', content: 'which app keeps my meeting notes?' }] } }),
    postAdCase('no conversation (as the GET), with session_id and keywords', 200, active, { session_id: 'session-0001', keywords: ['notes'] }),
    postAdCase('a sensitive conversation', 204, active, { context: { messages: [{ role: 'user', content: 'I have a fever and a cough' }] } }),
    postAdCase('an off-topic conversation', 204, active, { context: { messages: [{ role: 'user', content: 'what is the capital of Peru?' }] } }),
    postAdCase("another publisher's placement", 404, async (t) => ({
      key: await activeKey(t),
      placementId: (await t.sdkPlacement('active', 'demo2')).placementId,
    })),
    postAdCase('seven messages', 400, active, { context: { messages: Array.from({ length: 7 }, () => ({ role: 'user', content: 'notes' })) } }),
    postAdCase('4,001 characters', 400, active, { context: { messages: [{ role: 'user', content: 'n'.repeat(4001) }] } }),
    postAdCase('a system message', 400, active, { context: { messages: [{ role: 'system', content: 'notes' }] } }),
    keyed('an invalid body: not JSON', 400, async () => ({ body: '{"placement_id": ' })),
    keyed('a text/plain body', 415, async (t) => ({ body: JSON.stringify({ placement_id: (await active(t)).placementId }), contentType: 'text/plain' })),
    ...keyRefusals(API_KEY, async (t) => ({ body: JSON.stringify({ placement_id: (await active(t)).placementId }) }), { working: activeKey }),
    overBudget(async (t) => ({ body: JSON.stringify({ placement_id: (await active(t)).placementId }), headers: { [API_KEY]: await activeKey(t) } })),
  ],
  'POST /functions/v1/conversions': [
    {
      label: "a click's conversion, with its advertiser's key",
      expect: [200],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ body: conversionJson(clickId), token: await t.conversionKey(advertiserId) });
      },
    },
    {
      label: 'the same event sent twice (the second is a duplicate)',
      expect: [200, 200],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        const body = conversionJson(clickId);
        const token = await t.conversionKey(advertiserId);
        await t.call({ body, token });
        await t.call({ body, token });
      },
    },
    {
      label: 'a click id this service did not sign (kept as invalid)',
      expect: [200],
      run: async (t) => {
        const { advertiserId } = await t.sdkClick();
        await t.call({ body: conversionJson(FOREIGN_CLICK_ID), token: await t.conversionKey(advertiserId) });
      },
    },
    {
      label: 'a revoked key (kept as invalid)',
      expect: [403],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ body: conversionJson(clickId), token: await t.conversionKey(advertiserId, 'revoked') });
      },
    },
    {
      label: 'the key sent from a web page',
      expect: [403],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ body: conversionJson(clickId), token: await t.conversionKey(advertiserId), headers: { origin: 'https://shop.example' } });
      },
    },
    { label: 'no credential', expect: [401], run: async (t) => void (await t.call({ body: conversionJson(FOREIGN_CLICK_ID) })) },
    {
      label: 'an unknown key',
      expect: [401],
      run: async (t) => void (await t.call({ body: conversionJson(FOREIGN_CLICK_ID), token: `ck_live_${'A'.repeat(32)}` })),
    },
    { label: 'a user token', expect: [401], run: async (t) => void (await t.call({ body: conversionJson(FOREIGN_CLICK_ID), token: await t.user() })) },
    {
      label: "a publisher's SDK key",
      expect: [401],
      run: async (t) => void (await t.call({ body: conversionJson(FOREIGN_CLICK_ID), headers: { [API_KEY]: await t.sdkKey('active') } })),
    },
    ...(
      [
        ['an invalid body: no event_id', 400, JSON.stringify({ click_id: 'x', name: 'signup', occurred_at: new Date().toISOString() }), undefined],
        ['an invalid body: a negative value', 400, conversionJson(FOREIGN_CLICK_ID, { value_usd: -1 }), undefined],
        ['an invalid body: not JSON', 400, '{"event_id": ', undefined],
        ['a text/plain body', 415, conversionJson(FOREIGN_CLICK_ID), 'text/plain'],
        ['a body over 64 KiB', 413, conversionJson(OVER_64_KIB), undefined],
      ] as const
    ).map(([label, status, body, contentType]): Case => ({
      label,
      expect: [status],
      run: async (t) => {
        const { advertiserId } = await t.sdkClick();
        await t.call({ body, contentType, token: await t.conversionKey(advertiserId) });
      },
    })),
    {
      label: 'while the database is down',
      expect: [503],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        const token = await t.conversionKey(advertiserId);
        await t.outage(() => t.call({ body: conversionJson(clickId), token }));
      },
    },
    overBudget(async () => ({ body: conversionJson(FOREIGN_CLICK_ID), token: `ck_live_${'A'.repeat(32)}` })),
  ],
  'POST /functions/v1/conversions/tag': [
    {
      label: 'what the tag sends (JSON)',
      expect: [200],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ body: tagJson(await t.conversionTag(advertiserId), clickId) });
      },
    },
    {
      label: 'what the tag sends by beacon (text/plain)',
      expect: [200],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ body: tagJson(await t.conversionTag(advertiserId), clickId), contentType: 'text/plain;charset=UTF-8' });
      },
    },
    { label: 'a tag id nobody has', expect: [404], run: async (t) => void (await t.call({ body: tagJson(UNKNOWN_TAG, FOREIGN_CLICK_ID) })) },
    { label: 'an invalid body: no tag', expect: [400], run: async (t) => void (await t.call({ body: JSON.stringify({ click_id: 'x', name: 'signup' }) })) },
    { label: 'a form body', expect: [415], run: async (t) => void (await t.call({ body: 'tag=x', contentType: 'application/x-www-form-urlencoded' })) },
    {
      label: 'while the database is down',
      expect: [503],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        const body = tagJson(await t.conversionTag(advertiserId), clickId);
        await t.outage(() => t.call({ body }));
      },
    },
    overBudget(async () => ({ body: tagJson(UNKNOWN_TAG, FOREIGN_CLICK_ID) })),
  ],
  'GET /functions/v1/conversions/tag': [
    {
      label: 'an image tag',
      expect: [200],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        await t.call({ url: tagUrl({ tag: await t.conversionTag(advertiserId), click_id: clickId, name: 'signup', value_usd: '19.99' }) });
      },
    },
    {
      label: 'a tag id nobody has',
      expect: [404],
      run: async (t) => void (await t.call({ url: tagUrl({ tag: UNKNOWN_TAG, click_id: FOREIGN_CLICK_ID, name: 'signup' }) })),
    },
    { label: 'no tag', expect: [400], run: async (t) => void (await t.call({ url: tagUrl({ click_id: FOREIGN_CLICK_ID, name: 'signup' }) })) },
    {
      label: 'bad parameter value_usd="1e3"',
      expect: [400],
      run: async (t) => void (await t.call({ url: tagUrl({ tag: UNKNOWN_TAG, click_id: FOREIGN_CLICK_ID, name: 'signup', value_usd: '1e3' }) })),
    },
    {
      label: 'while the database is down',
      expect: [503],
      run: async (t) => {
        const { clickId, advertiserId } = await t.sdkClick();
        const url = tagUrl({ tag: await t.conversionTag(advertiserId), click_id: clickId, name: 'signup' });
        await t.outage(() => t.call({ url }));
      },
    },
    overBudget(async () => ({ url: tagUrl({ tag: UNKNOWN_TAG, click_id: FOREIGN_CLICK_ID, name: 'signup' }) })),
  ],
  'GET /functions/v1/click': [
    {
      label: "an ad's click_url (no credential)",
      expect: [302],
      run: async (t) => {
        const a = await t.call({ url: pathOf((await t.sdkAd()).click_url) });
        // The document lists Location without marking it required, so `check` only validates it when sent.
        if (a.status === 302 && !a.headers.get('location')) throw new Error('the click redirect has no Location');
      },
    },
    {
      label: 'the same click_url opened twice',
      expect: [302, 302],
      run: async (t) => {
        const url = pathOf((await t.sdkAd()).click_url);
        await t.call({ url });
        await t.call({ url });
      },
    },
    {
      label: 'an expired token of an ad served (redirects, counts nothing)',
      expect: [302],
      run: async (t) => {
        const [decisionId, appId] = (await t.sdkAd()).token.split('.') as [string, string];
        const expired = signDecisionToken(await testServices().sdkSecret(), { decisionId, appId, expiresAt: Math.floor(Date.now() / 1000) - 60 });
        await t.call({ url: clickUrl(expired) });
      },
    },
    {
      label: "an ad's click_url while the database is down",
      expect: [503],
      run: async (t) => {
        const url = pathOf((await t.sdkAd()).click_url);
        await t.outage(() => t.call({ url }));
      },
    },
    { label: 'a token this service did not sign', expect: [404], run: async (t) => void (await t.call({ url: clickUrl(FOREIGN_TOKEN) })) },
    { label: 'token=a (not a decision token)', expect: [404], run: async (t) => void (await t.call({ url: clickUrl('a') })) },
    { label: 'no token', expect: [400], run: async (t) => void (await t.call({})) },
    { label: 'bad parameter token=""', expect: [400], run: async (t) => void (await t.call({ url: clickUrl('') })) },
    { label: 'bad parameter token=aaaaaaaa…(301 chars)', expect: [400], run: async (t) => void (await t.call({ url: clickUrl('a'.repeat(301)) })) },
    overBudget(async (t) => ({ url: pathOf((await t.sdkAd()).click_url) })),
  ],
  'POST /functions/v1/events': [
    {
      label: "a key and its ad's impression",
      expect: [200],
      run: async (t) => void (await t.call({ body: eventsJson((await t.sdkAd()).token), headers: { [API_KEY]: await activeKey(t) } })),
    },
    {
      label: "a key and its ad's impression and click",
      expect: [200],
      run: async (t) => {
        const { token } = await t.sdkAd();
        const events = [{ type: 'impression', viewability: { visible_share: 0.8, visible_seconds: 1.5 } }, { type: 'click' }];
        await t.call({ body: eventsJson(token, events), headers: { [API_KEY]: await activeKey(t) } });
      },
    },
    {
      label: 'a beacon: text/plain, no key',
      expect: [200],
      run: async (t) => void (await t.call({ body: eventsJson((await t.sdkAd()).token), contentType: 'text/plain;charset=UTF-8' })),
    },
    {
      label: 'a beacon whose token this service did not sign (the event is rejected)',
      expect: [200],
      run: async (t) => void (await t.call({ body: eventsJson(FOREIGN_TOKEN), contentType: 'text/plain;charset=UTF-8' })),
    },
    {
      label: "another app's key for an ad (the event is rejected)",
      expect: [200],
      run: async (t) => void (await t.call({ body: eventsJson((await t.sdkAd()).token), headers: { [API_KEY]: await t.sdkKey('active') } })),
    },
    keyed('an invalid body: no events', 400, async () => ({ body: '{"events":[]}' })),
    keyed('an invalid body: an event of type view', 400, async () => ({ body: eventsJson(FOREIGN_TOKEN, [{ type: 'view' }]) })),
    keyed('an invalid body: not JSON', 400, async () => ({ body: '{"events": [' })),
    keyed('a form body', 415, async () => ({ body: 'events=1', contentType: 'application/x-www-form-urlencoded' })),
    keyed('a body over 64 KiB', 413, async () => ({ body: eventsJson(OVER_64_KIB) })),
    ...keyRefusals(API_KEY, async () => ({ body: eventsJson(FOREIGN_TOKEN) }), { optional: true }),
    {
      label: 'a beacon while the database is down',
      expect: [503],
      run: async (t) => {
        const body = eventsJson((await t.sdkAd()).token);
        await t.outage(() => t.call({ body, contentType: 'text/plain;charset=UTF-8' }));
      },
    },
    overBudget(async () => ({ body: eventsJson(FOREIGN_TOKEN), contentType: 'text/plain;charset=UTF-8' })),
  ],
  'GET /functions/v1/consents': [
    keyed('a subject with a current consent, and its proof', 200, async (t) => {
      const { subject, headers } = await owned(t);
      return { url: consentsUrl(subject), headers };
    }),
    keyed('a subject with a current consent, without its proof', 404, async (t) => ({ url: consentsUrl((await t.sdkConsent()).subject) })),
    keyed('a subject with a current consent, and a wrong proof', 404, async (t) => ({
      url: consentsUrl((await t.sdkConsent()).subject),
      headers: proofOf(FORGED_PROOF),
    })),
    {
      label: "another publisher's key, for a subject consented in another app, with its proof",
      expect: [404],
      run: async (t) => {
        const { subject, headers } = await owned(t);
        await t.call({ url: consentsUrl(subject), headers: { ...headers, [API_KEY]: await t.sdkKey('active', 'demo2', 'development') } });
      },
    },
    keyed('a subject without a consent', 404, async () => ({ url: consentsUrl(newSubject()) })),
    keyed('no subject_id', 400, async () => ({})),
    keyed('bad parameter subject_id="a"', 400, async () => ({ url: consentsUrl('a') })),
    keyed('bad parameter subject_id in upper case', 400, async () => ({ url: consentsUrl(newSubject().toUpperCase()) })),
    keyed('bad parameter subject_id=an email', 400, async () => ({ url: consentsUrl('someone@example.com') })),
    keyed('subject_id given twice', 400, async () => ({ url: `${consentsUrl(newSubject())}&subject_id=${newSubject()}` })),
    ...keyRefusals(API_KEY, async () => ({ url: consentsUrl(newSubject()) })),
    overBudget(async (t) => ({ url: consentsUrl(newSubject()), headers: { [API_KEY]: await t.sdkKey('active') } })),
  ],
  'POST /functions/v1/consents': [
    keyed("a new subject's consent", 200, async () => ({ body: consentJson(newSubject()) })),
    keyed('a consent to both purposes, with consented_at', 200, async () => ({
      body: consentJson(newSubject(), ['ai_interactions', 'ux_sessions'], { consented_at: withOffset(2 * 3_600_000) }),
    })),
    keyed('consented_at 31 days ago', 400, async () => ({
      body: consentJson(newSubject(), ['ai_interactions'], { consented_at: withOffset(31 * 86_400_000) }),
    })),
    keyed('consented_at 10 minutes ahead', 400, async () => ({ body: consentJson(newSubject(), ['ai_interactions'], { consented_at: withOffset(-600_000) }) })),
    keyed("a new consent for a subject that has one, with the subject's proof", 200, async (t) => {
      const { subject, headers } = await owned(t);
      return { body: consentJson(subject, ['ux_sessions']), headers };
    }),
    keyed("a new consent for a subject that has one, without the subject's proof", 403, async (t) => ({
      body: consentJson((await t.sdkConsent()).subject, ['ux_sessions']),
    })),
    keyed('a new consent for a subject that has one, with a wrong proof', 403, async (t) => ({
      body: consentJson((await t.sdkConsent()).subject, ['ux_sessions']),
      headers: proofOf(FORGED_PROOF),
    })),
    {
      label: "another publisher's development key",
      expect: [200],
      run: async (t) => void (await t.call({ body: consentJson(newSubject()), headers: { [API_KEY]: await t.sdkKey('active', 'demo2', 'development') } })),
    },
    {
      label: 'a consent replaced by a narrower one, with the proof the first answered',
      expect: [200, 200],
      run: async (t) => {
        const subject = newSubject();
        const headers = { [API_KEY]: await t.sdkKey('active') };
        const first = await t.call({ body: consentJson(subject, ['ai_interactions', 'ux_sessions']), headers });
        const { consent_proof } = JSON.parse(first.text) as { consent_proof: string };
        await t.call({ body: consentJson(subject, ['ux_sessions']), headers: { ...headers, ...proofOf(consent_proof) } });
      },
    },
    keyed('an invalid body: subject_id in upper case', 400, async () => ({ body: consentJson(newSubject().toUpperCase()) })),
    keyed('an invalid body: no purposes', 400, async () => ({ body: consentJson(newSubject(), []) })),
    keyed('an invalid body: an unknown purpose', 400, async () => ({ body: consentJson(newSubject(), ['advertising']) })),
    keyed('an invalid body: no policy_version', 400, async () => ({ body: JSON.stringify({ subject_id: newSubject(), purposes: ['ai_interactions'] }) })),
    keyed('an invalid body: not JSON', 400, async () => ({ body: '{"subject_id":' })),
    keyed('a text/plain body', 415, async () => ({ body: consentJson(newSubject()), contentType: 'text/plain' })),
    keyed('a body over 64 KiB', 413, async () => ({ body: consentJson(newSubject(), ['ai_interactions'], { policy_version: OVER_64_KIB }) })),
    ...keyRefusals(API_KEY, async () => ({ body: consentJson(newSubject()) })),
    overBudget(async (t) => ({ body: consentJson(newSubject()), headers: { [API_KEY]: await t.sdkKey('active') } })),
  ],
  'DELETE /functions/v1/consents': [
    keyed('a subject with a current consent, and its proof', 200, async (t) => {
      const { subject, headers } = await owned(t);
      return { url: consentsUrl(subject), headers };
    }),
    {
      label: 'withdrawn twice (the second time, nothing is left to withdraw)',
      expect: [200, 200],
      run: async (t) => {
        const { subject, headers } = await owned(t);
        const init = { url: consentsUrl(subject), headers: { ...headers, [API_KEY]: await t.sdkKey('active') } };
        await t.call(init);
        await t.call(init);
      },
    },
    keyed('a subject with a current consent, without its proof', 403, async (t) => ({ url: consentsUrl((await t.sdkConsent()).subject) })),
    keyed('a subject with a current consent, and a wrong proof', 403, async (t) => ({
      url: consentsUrl((await t.sdkConsent()).subject),
      headers: proofOf(FORGED_PROOF),
    })),
    keyed('a subject that never consented', 403, async () => ({ url: consentsUrl(newSubject()), headers: proofOf(FORGED_PROOF) })),
    keyed('no subject_id', 400, async () => ({})),
    keyed('bad parameter subject_id="a"', 400, async () => ({ url: consentsUrl('a') })),
    keyed('bad parameter subject_id in upper case', 400, async () => ({ url: consentsUrl(newSubject().toUpperCase()) })),
    ...keyRefusals(API_KEY, async () => ({ url: consentsUrl(newSubject()) })),
    overBudget(async (t) => ({ url: consentsUrl(newSubject()), headers: { [API_KEY]: await t.sdkKey('active') } })),
  ],
  'POST /functions/v1/data': [
    keyed('an AI interaction of a subject consented to ai_interactions, with its proof', 200, async (t) => {
      const { subject, headers } = await owned(t);
      return { body: dataJson(subject), headers };
    }),
    {
      label: 'the same records sent twice (the second time, duplicates)',
      expect: [200, 200],
      run: async (t) => {
        const records = [{ id: `r-${randomBytes(6).toString('hex')}`, data: { prompt: 'hi', response: 'hello', model: 'demo' } }];
        const { subject, headers } = await owned(t);
        const init = { body: dataJson(subject, records), headers: { ...headers, [API_KEY]: await t.sdkKey('active') } };
        await t.call(init);
        await t.call(init);
      },
    },
    keyed('a UX session of a subject consented to ux_sessions', 200, async (t) => {
      const session = { started_at: '2026-11-20T10:00:00Z', duration_seconds: 12, events: [{ t: 0, type: 'click', target: 'button' }] };
      const { subject, headers } = await owned(t, ['ux_sessions']);
      return { body: dataJson(subject, [{ id: `ux-${randomBytes(6).toString('hex')}`, data: session }], 'ux_session'), headers };
    }),
    keyed('a body over 64 KiB, within the 1 MiB of this route (50 records of 14 KB)', 200, async (t) => {
      const data = { prompt: 'p'.repeat(7_000), response: 'r'.repeat(7_000) };
      const { subject, headers } = await owned(t);
      return {
        body: dataJson(
          subject,
          Array.from({ length: 50 }, (_, i) => ({ id: `big-${randomBytes(4).toString('hex')}-${i}`, data })),
        ),
        headers,
      };
    }),
    keyed('a subject without a consent', 403, async () => ({ body: dataJson(newSubject()), headers: proofOf(FORGED_PROOF) })),
    keyed('a subject with a consent, without its proof', 403, async (t) => ({ body: dataJson((await t.sdkConsent()).subject) })),
    keyed('a subject with a consent, and a wrong proof', 403, async (t) => ({
      body: dataJson((await t.sdkConsent()).subject),
      headers: proofOf(FORGED_PROOF),
    })),
    keyed('a subject consented to ux_sessions only', 403, async (t) => {
      const { subject, headers } = await owned(t, ['ux_sessions']);
      return { body: dataJson(subject), headers };
    }),
    keyed('an invalid body: subject_id in upper case', 400, async () => ({ body: dataJson(newSubject().toUpperCase()) })),
    keyed('an invalid body: a record without its response', 400, async (t) => ({
      body: dataJson((await t.sdkConsent()).subject, [{ id: 'r1', data: { prompt: 'hi' } }]),
    })),
    keyed('an invalid body: an unknown kind', 400, async (t) => ({ body: dataJson((await t.sdkConsent()).subject, AI_RECORDS, 'emails') })),
    keyed('an invalid body: 51 records', 400, async (t) => ({
      body: dataJson(
        (await t.sdkConsent()).subject,
        Array.from({ length: 51 }, (_, i) => ({ id: `r${i}`, data: { prompt: 'hi', response: 'hello' } })),
      ),
    })),
    keyed('an invalid body: not JSON', 400, async () => ({ body: '{"records": [' })),
    keyed('a text/plain body', 415, async (t) => ({ body: dataJson((await t.sdkConsent()).subject), contentType: 'text/plain' })),
    keyed('a body over 1 MiB', 413, async () => ({ body: dataJson(newSubject(), [{ id: 'r1', data: { prompt: 'a'.repeat(1_100_000), response: 'hello' } }]) })),
    ...keyRefusals(API_KEY, async (t) => {
      const { subject, headers } = await owned(t);
      return { body: dataJson(subject), headers };
    }),
    overBudget(async (t) => {
      const { subject, headers } = await owned(t);
      return { body: dataJson(subject), headers: { ...headers, [API_KEY]: await t.sdkKey('active') } };
    }),
  ],
};

const TABLE = OPERATIONS.map((op) => ({ op, cases: [...derivedCases(op), ...(WRITTEN[op.key] ?? [])] }));

// ---------------------------------------------------------------------------------------------
// What an answer must be to match the document.

/** The document's verdict on one answer: a list of problems, empty when it conforms. */
function check(op: Op, a: Answered): string[] {
  const problems: string[] = [];
  const status = documentedResponse(op, a.status);
  if (status === null) {
    problems.push(`status ${a.status} is not documented (documented: ${Object.keys(op.op.responses).join(', ')}); body: ${a.text.slice(0, 300)}`);
    return problems;
  }
  const { ptr: responsePtr, value: response } = resolve<ResponseObject>(`${op.ptr}/responses/${escapeToken(status)}`);

  // Content type and body.
  const content = response.content ?? {};
  const types = Object.keys(content);
  const got = mediaType(a.headers.get('content-type'));
  if (types.length === 0) {
    if (a.text !== '') problems.push(`no content is documented for ${status}, yet the answer has a body (${got})`);
  } else if (!types.map((m) => m.toLowerCase()).includes(got)) {
    problems.push(`content-type ${JSON.stringify(a.headers.get('content-type'))} is not documented for ${status} (documented: ${types.join(', ')})`);
  } else {
    const mediaKey = types.find((m) => m.toLowerCase() === got)!;
    if (content[mediaKey]!.schema) {
      let body: unknown;
      try {
        body = JSON.parse(a.text);
      } catch {
        problems.push(`the body is not JSON: ${a.text.slice(0, 200)}`);
      }
      if (body !== undefined) {
        const errors = validate(`${responsePtr}/content/${escapeToken(mediaKey)}/schema`, body);
        if (errors) problems.push(`the body does not match the documented ${status} schema: ${errors}`);
        if (op.key === 'POST /api/v1/batch' && a.status === 200 && Array.isArray((body as { responses?: unknown } | null)?.responses)) {
          problems.push(...checkSubResponses(a, body));
        }
      }
    }
  }

  // Headers: the common ones on every answer, the required ones, and every documented one sent.
  const documented = Object.keys(response.headers ?? {});
  for (const name of Object.keys(doc.components?.headers ?? {})) {
    if (!a.headers.has(name)) problems.push(`the common header ${name} is missing`);
    if (!documented.some((d) => d.toLowerCase() === name.toLowerCase())) problems.push(`the common header ${name} is not documented on ${status}`);
  }
  for (const name of documented) {
    const { ptr: headerPtr, value: header } = resolve<HeaderObject>(`${responsePtr}/headers/${escapeToken(name)}`);
    const raw = a.headers.get(name);
    if (raw === null) {
      if (header.required) problems.push(`the required header ${name} is missing`);
      continue;
    }
    if (header.schema) {
      const errors = validate(`${headerPtr}/schema`, coerce(raw, `${headerPtr}/schema`));
      if (errors) problems.push(`header ${name}: ${JSON.stringify(raw)} does not match its schema: ${errors}`);
    }
  }

  // A request the service accepted must be one the document allows.
  if (a.status >= 200 && a.status < 300) problems.push(...checkAcceptedRequest(op, a));
  return problems;
}

/** Batch answers each sub-request as its route would: each must match that route's documentation. */
function checkSubResponses(a: Answered, body: unknown): string[] {
  const problems: string[] = [];
  const subs = (JSON.parse(a.request.body ?? '{}') as { requests: { path: string }[] }).requests;
  const answers = (body as { responses: { status: number; body: unknown }[] }).responses;
  if (answers.length !== subs.length) problems.push(`${subs.length} sub-requests, ${answers.length} sub-responses`);
  answers.forEach((sub, i) => {
    const pathname = new URL(subs[i]?.path ?? '/', ORIGIN).pathname;
    const subOp = OPERATIONS.find((o) => o.method === 'GET' && o.path === pathname);
    if (!subOp) return void problems.push(`responses[${i}]: no GET ${pathname} in the document`);
    const status = documentedResponse(subOp, sub.status);
    if (status === null)
      return void problems.push(`responses[${i}] (GET ${subs[i]!.path.slice(0, 80)}): status ${sub.status} is not documented for ${subOp.key}`);
    const { ptr, value } = resolve<ResponseObject>(`${subOp.ptr}/responses/${escapeToken(status)}`);
    if (!value.content?.['application/json']?.schema) return;
    const errors = validate(`${ptr}/content/${escapeToken('application/json')}/schema`, sub.body);
    if (errors) problems.push(`responses[${i}] (GET ${subs[i]!.path.slice(0, 80)}, ${sub.status}) does not match the ${subOp.key} ${status} schema: ${errors}`);
  });
  return problems;
}

function checkAcceptedRequest(op: Op, a: Answered): string[] {
  const problems: string[] = [];
  const url = new URL(a.request.url);
  for (const { ptr, value: p } of parametersOf(op)) {
    const raw = p.in === 'query' ? url.searchParams.get(p.name) : p.in === 'header' ? (a.request.headers[p.name.toLowerCase()] ?? null) : null;
    if (raw === null) {
      if (p.required && (p.in === 'query' || p.in === 'header')) problems.push(`accepted without the required ${p.in} parameter ${p.name}`);
      continue;
    }
    if (!p.schema) continue;
    const errors = validate(`${ptr}/schema`, coerce(raw, `${ptr}/schema`));
    if (errors) problems.push(`accepted the ${p.in} parameter ${p.name}=${JSON.stringify(raw.slice(0, 60))}, which its documented schema refuses: ${errors}`);
  }
  if (op.op.requestBody) {
    const { ptr, value: rb } = resolve<NonNullable<Operation['requestBody']>>(`${op.ptr}/requestBody`);
    const type = mediaType(a.request.headers['content-type'] ?? null);
    const key = Object.keys(rb.content ?? {}).find((m) => m.toLowerCase() === type);
    if (!key) problems.push(`accepted a ${type || 'untyped'} body; documented: ${Object.keys(rb.content ?? {}).join(', ')}`);
    else if (rb.content![key]!.schema) {
      let body: unknown;
      try {
        body = JSON.parse(a.request.body ?? '');
      } catch {
        problems.push('accepted a body that is not JSON');
      }
      const errors = body === undefined ? null : validate(`${ptr}/content/${escapeToken(key)}/schema`, body);
      if (errors) problems.push(`accepted a body the documented request schema refuses: ${errors}`);
    }
  }
  return problems;
}

function describeRequest(r: Answered['request']): string {
  const body = r.body === undefined ? '' : ` body ${r.body.length > 160 ? `${r.body.slice(0, 160)}…(${r.body.length} bytes)` : r.body}`;
  return `${r.method} ${r.url.slice(ORIGIN.length, ORIGIN.length + 120)} [${r.what}]${body}`;
}

// ---------------------------------------------------------------------------------------------

describe('the published document', () => {
  it('is served as JSON, OpenAPI 3.1, with operations to check', () => {
    expect(published.status).toBe(200);
    expect(mediaType(published.contentType)).toBe('application/json');
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(OPERATIONS.length).toBeGreaterThan(0);
  });

  it('compiles: every response schema and header schema resolves under Ajv', () => {
    for (const op of OPERATIONS) {
      for (const status of Object.keys(op.op.responses)) {
        const { ptr, value } = resolve<ResponseObject>(`${op.ptr}/responses/${escapeToken(status)}`);
        for (const [m, media] of Object.entries(value.content ?? {}))
          if (media.schema) expect(() => validatorAt(`${ptr}/content/${escapeToken(m)}/schema`), `${op.key} ${status} ${m}`).not.toThrow();
        for (const h of Object.keys(value.headers ?? {})) {
          const header = resolve<HeaderObject>(`${ptr}/headers/${escapeToken(h)}`);
          if (header.value.schema) expect(() => validatorAt(`${header.ptr}/schema`), `${op.key} ${status} header ${h}`).not.toThrow();
        }
      }
    }
  });
});

for (const engine of testEngines()) {
  describe(`what the service answers matches the document, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let probe: ReturnType<typeof instrumented>;
    const generous = () => new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 });
    /** The suite's services on the instrumented database; `limitedBy` gives them another budget. */
    let services: Services;
    const limitedBy = (rateLimiter: MemoryRateLimiter): Services => ({ ...services, rateLimiter });
    /** The statuses each operation answered, by operation. */
    const drawn = new Map<string, number[]>();

    beforeAll(() => {
      probe = instrumented(suite.db);
      services = makeServices({ database: probe.engine, rateLimiter: generous() });
      setTestServices(services);
    });
    afterEach(() => {
      probe.state.failing = false;
      setTestServices(limitedBy(generous()));
    });

    const tokens = new Map<string, string>();
    const tokenNames = new Map<string, string>();
    const sdkKeys = new Map<string, string>();

    const sdkPlacements = new Map<string, { key: string; placementId: string }>();

    /** A call of `method` on the route of `path`, run with the test's services. */
    async function send(path: string, method: string, init: CallInit): Promise<Answered> {
      const url = `${ORIGIN}${init.url ?? path}`;
      const headers: Record<string, string> = { 'x-forwarded-for': CLIENT_IP };
      let what = 'no token';
      if (init.token !== undefined) {
        headers.authorization = init.token.includes(' ') ? init.token : `Bearer ${init.token}`;
        what = `Authorization: ${tokenNames.get(init.token) ?? headers.authorization}`;
      }
      if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
      for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
      if (init.headers?.['idempotency-key']) what += `, Idempotency-Key: ${init.headers['idempotency-key']}`;
      if (init.headers?.['x-api-key'] !== undefined) what += `, x-api-key: ${JSON.stringify(init.headers['x-api-key'].slice(0, 16))}…`;
      if (init.contentType) what += `, Content-Type: ${init.contentType}`;
      const mod = await routeModule(path);
      if (!mod[method]) throw new Error(`${method} ${path}: the route module exports no ${method}`);
      // The module's handler, run with the test's services (the suite's database and budget).
      const handler: Handler = routeOf(mod[method])!.with(testServices())[method as HttpMethod];
      const res = await handler(new Request(url, { method, headers, body: init.body }), ctx());
      return { request: { method, url, headers, body: init.body, what }, status: res.status, headers: res.headers, text: await res.text() };
    }

    /** A success of another operation, made for a case (an ad, a consent): not an answer of the case. */
    async function prepared(path: string, method: string, init: CallInit): Promise<unknown> {
      const a = await send(path, method, init);
      if (a.status !== 200) throw new Error(`${method} ${path} answered ${a.status}: ${a.text.slice(0, 300)}`);
      return JSON.parse(a.text);
    }

    function toolsFor(op: Op, answered: Answered[]): Tools {
      const tools: Tools = {
        async call(init = {}) {
          const a = await send(op.path, op.method, init);
          answered.push(a);
          return a;
        },
        async user(scopes, who = 'demo') {
          const id = `${who} ${scopes ? scopes.join(' ') : '*'}`;
          let token = tokens.get(id);
          if (!token) {
            token = await accessToken(suite.users[who], scopes ? { scopes } : {});
            tokens.set(id, token);
            tokenNames.set(token, `Bearer <${who}'s token, scopes: ${scopes ? scopes.join(' ') || '(none)' : 'all'}>`);
          }
          return token;
        },
        async expired() {
          const token = await expiredToken(suite.users.demo);
          tokenNames.set(token, "Bearer <demo's expired token>");
          return token;
        },
        async mcpOnly() {
          const token = await accessToken(suite.users.demo, { resources: ['mcp'] });
          tokenNames.set(token, "Bearer <demo's token for the MCP resource only>");
          return token;
        },
        async outage(fn) {
          // An instance that has not seen the key: the directory would answer it for 4 s without the database.
          testServices().sdkDirectory.clear();
          probe.state.failing = true;
          try {
            return await fn();
          } finally {
            probe.state.failing = false;
          }
        },
        async budget(max, fn) {
          setTestServices(limitedBy(new MemoryRateLimiter({ max, windowSeconds: 60 })));
          try {
            return await fn();
          } finally {
            setTestServices(limitedBy(generous()));
          }
        },
        async sdkKey(state, who = 'demo', environment = 'production') {
          const id = `${state} ${who} ${environment}`;
          let key = sdkKeys.get(id);
          if (!key) {
            const userId = suite.users[who];
            const appId = state === 'archived-app' ? await newApp(suite.db, userId, 'Archived for the document') : undefined;
            const made = await newKey(suite.db, userId, { appId, environment });
            if (state === 'revoked' && !(await revokeApiKey(suite.db, userId, made.id)).ok) throw new Error('the key could not be revoked');
            if (state === 'archived-app' && !(await archiveApp(suite.db, userId, made.appId)).ok) throw new Error('the app could not be archived');
            key = made.key;
            sdkKeys.set(id, key);
          }
          return key;
        },
        async sdkPlacement(state, who = 'demo') {
          const id = `${state} ${who}`;
          let made = sdkPlacements.get(id);
          if (!made) {
            const userId = suite.users[who];
            const appId = await newApp(suite.db, userId, `Placements for the document (${state})`);
            const placement = await createPlacement(suite.db, userId, { app_id: appId, name: 'Sponsored card', format: 'sponsored_card' });
            if (!placement.ok) throw new Error(`createPlacement refused: ${placement.error}`);
            if (state === 'paused') {
              const paused = await changePlacement(suite.db, userId, placement.value.id, 'pause');
              if (!paused.ok) throw new Error(`changePlacement refused: ${paused.error}`);
            }
            made = { key: (await newKey(suite.db, userId, { appId })).key, placementId: placement.value.id };
            sdkPlacements.set(id, made);
          }
          return made;
        },
        async sdkAd() {
          const { key, placementId } = await tools.sdkPlacement('active');
          const ad = await prepared('/functions/v1/ads', 'GET', { url: adsUrl(placementId), headers: { [API_KEY]: key } });
          return ad as { decision_id: string; token: string; click_url: string };
        },
        async sdkClick() {
          const ad = await tools.sdkAd();
          await prepared('/functions/v1/events', 'POST', { body: eventsJson(ad.token), headers: { [API_KEY]: (await tools.sdkPlacement('active')).key } });
          const landed = await send('/functions/v1/click', 'GET', { url: pathOf(ad.click_url) });
          const clickId = new URL(landed.headers.get('location') ?? 'https://x.example/').searchParams.get('mclid');
          if (!clickId) throw new Error(`the click landed without a click id (${landed.status})`);
          const [row] = await suite.db.query<{ advertiser_id: string }>(
            'select c.advertiser_id from public.ad_decisions d join public.campaigns c on c.id = d.campaign_id where d.id = $1',
            [ad.decision_id],
          );
          return { clickId, advertiserId: row!.advertiser_id };
        },
        async conversionKey(advertiserId, state = 'active') {
          const id = `conversions ${advertiserId} ${state}`;
          let key = sdkKeys.get(id);
          if (!key) {
            const made = await createConversionKey(suite.db, advertiserId, `For the document (${state})`);
            if (!made.ok) throw new Error(made.error);
            if (state === 'revoked' && !(await revokeConversionKey(suite.db, advertiserId, made.value.id)).ok) throw new Error('the key could not be revoked');
            key = made.value.key;
            sdkKeys.set(id, key);
          }
          return key;
        },
        async conversionTag(advertiserId) {
          const tag = await conversionTag(suite.db, advertiserId);
          if (!tag) throw new Error('no conversion tag');
          return tag;
        },
        async sdkConsent(purposes = ['ai_interactions']) {
          const subject = newSubject();
          const made = await prepared('/functions/v1/consents', 'POST', {
            body: consentJson(subject, purposes),
            headers: { [API_KEY]: await tools.sdkKey('active') },
          });
          return { subject, proof: (made as { consent_proof: string }).consent_proof };
        },
      };
      return tools;
    }

    for (const { op, cases } of TABLE) {
      describe(op.key, () => {
        for (const c of cases) {
          it(c.label, async () => {
            const answered: Answered[] = [];
            await c.run(toolsFor(op, answered));
            drawn.set(op.key, [...(drawn.get(op.key) ?? []), ...answered.map((a) => a.status)]);
            const problems: string[] = [];
            if (answered.length !== c.expect.length) problems.push(`the case made ${answered.length} calls, meant ${c.expect.length}`);
            answered.forEach((a, i) => {
              const where = `${describeRequest(a.request)} → ${a.status}`;
              if (c.expect[i] !== undefined && a.status !== c.expect[i])
                problems.push(`${where}: the case is there to draw ${c.expect[i]}; body: ${a.text.slice(0, 300)}`);
              for (const p of check(op, a)) problems.push(`${where}: ${p}`);
            });
            expect(problems, `${op.key}, ${c.label}:\n  ${problems.join('\n  ')}`).toEqual([]);
          });
        }
      });
    }

    it('exercised every operation of the document with a success status', () => {
      // A link succeeds by redirecting (an ad's click URL): a 3xx counts when the operation documents it.
      const success = (op: Op, s: number) => (s >= 200 && s < 300) || (s >= 300 && s < 400 && String(s) in op.op.responses);
      const missing = OPERATIONS.filter((op) => !(drawn.get(op.key) ?? []).some((s) => success(op, s))).map((op) => op.key);
      expect(missing, 'operations never answered 2xx (or a documented 3xx) here: add cases for them').toEqual([]);
    });
  });
}
