import type { HttpMethod, RouteDeclaration } from '@/lib/platform/http/declaration';
import { ERROR_CODES, OAUTH_ERROR_CODES } from '@/lib/platform/http/errors';
import { MAX_BODY_BYTES } from '@/lib/platform/http/input';

/**
 * The fuzzer's oracle: what every answer must be, whatever was asked, from the documentation
 * (content/docs/errors.md, rate-limits.md, rest-api.md, mcp-servers.md, agents.md) and the
 * route's declaration in lib/schemas/registry.ts. It answers the list of what is wrong with one answer;
 * the runner adds "no hang" (the answer and its body settle within the per-request timeout).
 *
 * - No 5xx: the database is healthy, so no 503 either. The one documented 5xx that needs no
 *   failure is an account read for a token whose user no longer exists (502 `account_unavailable`).
 * - Every answer: `X-Request-Id`, a `Cache-Control`, `API-Version: 1` exactly on the routes that
 *   declare it, the five rate-limit headers exactly on the rate-limited surfaces (preflights are
 *   not counted, and carry none), with values in the documented syntax; a 429 has `Retry-After`.
 * - No shared cache may keep a credentialed answer, nor any error; a success without a credential
 *   has the Cache-Control its operation declares.
 * - A body beyond the route's size (64 KiB, or the operation's own), or a Content-Length saying
 *   so, is never accepted (413, or an earlier refusal).
 * - The sandbox token's account answers say so: `Service-Sandbox: true`.
 * - CORS as the route declares it.
 * - Errors in the route's documented shape: the API envelope (`{"error": {status, code, message}}`,
 *   the status repeated, the code from the closed table with its own status), or RFC 6749's
 *   (`{error, error_description}`); MCP's transport errors in JSON-RPC (400, 406, 415, as
 *   mcp-servers.md lists them); the consent page's HTML errors at /oauth/authorize; A2A's 500 in
 *   JSON-RPC (agents.md). 405 has `Allow`; 401 and 403 of bearer
 *   surfaces carry a challenge with `resource_metadata`; the SDK surface sends none.
 * - Successful JSON parses; a redirect has a `Location`; HEAD, 202 and 204 have no body; A2A
 *   answers 200 with a JSON-RPC response.
 */

export interface Sent {
  route: string;
  declaration: RouteDeclaration;
  method: HttpMethod;
  headers: Headers;
  /** The budget the request ran under. */
  budget: { max: number; windowSeconds: number };
  /** The credential is our signature for a user who no longer exists. */
  deletedUser: boolean;
  /** The body's size in bytes (0 without one). */
  bodyBytes?: number;
}

export interface Answered {
  status: number;
  headers: Headers;
  body: string;
  /** When the answer was read (Unix milliseconds). */
  at: number;
}

export type Verdict = { problems: string[]; documented5xx: boolean };

const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const RATE_HEADERS = ['ratelimit-policy', 'ratelimit', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
/** The top-level fields the index's 401 adds beside `error` (it still lists the endpoints). */
const INDEX_FIELDS = new Set(['name', 'version', 'openapi', 'auth', 'public_endpoints', 'account_endpoints', 'sdk_endpoints', 'error']);

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkRateLimit(sent: Sent, got: Answered, problems: string[]): void {
  const h = got.headers;
  // Every answer of a rate-limited surface says the budget, preflights too (which take nothing from it).
  const counted = sent.declaration.rateLimit;
  if (!counted) {
    const present = RATE_HEADERS.filter((n) => h.has(n));
    if (present.length > 0) problems.push(`rate-limit headers on a surface that is not counted here: ${present.join(', ')}`);
    return;
  }
  const { max, windowSeconds } = sent.budget;
  const policy = h.get('ratelimit-policy');
  const m = policy === null ? null : /^"default";q=(\d+);w=(\d+)(?:, "key";q=(\d+);w=(\d+))?$/.exec(policy);
  if (!m) problems.push(`RateLimit-Policy ${JSON.stringify(policy)} is not the documented syntax`);
  else if (Number(m[1]) !== max || Number(m[2]) !== windowSeconds)
    problems.push(`RateLimit-Policy ${policy} is not the budget in force (q=${max}, w=${windowSeconds})`);
  const rate = h.get('ratelimit');
  const r = rate === null ? null : /^"default";r=(\d+);t=(\d+)(?:, "key";r=(\d+);t=(\d+))?$/.exec(rate);
  if (!r) problems.push(`RateLimit ${JSON.stringify(rate)} is not the documented syntax`);
  else {
    if (Number(r[1]) > max) problems.push(`RateLimit r=${r[1]} exceeds the quota ${max}`);
    if (Number(r[2]) > windowSeconds) problems.push(`RateLimit t=${r[2]} exceeds the window ${windowSeconds}`);
    if ((r[3] === undefined) !== (m?.[3] === undefined)) problems.push('RateLimit and RateLimit-Policy name different policies');
  }
  const limit = h.get('x-ratelimit-limit');
  const remaining = h.get('x-ratelimit-remaining');
  const reset = h.get('x-ratelimit-reset');
  if (!/^\d+$/.test(limit ?? '')) problems.push(`X-RateLimit-Limit ${JSON.stringify(limit)} is not an integer`);
  if (!/^\d+$/.test(remaining ?? '') || Number(remaining) > Number(limit))
    problems.push(`X-RateLimit-Remaining ${JSON.stringify(remaining)} is not an integer within the limit`);
  const nowS = got.at / 1000;
  if (!/^\d+$/.test(reset ?? '') || Number(reset) < nowS - 2 || Number(reset) > nowS + windowSeconds + 2) {
    problems.push(`X-RateLimit-Reset ${JSON.stringify(reset)} is not a Unix time within the window`);
  }
  if (got.status === 429) {
    const retry = h.get('retry-after');
    if (!/^\d+$/.test(retry ?? '') || Number(retry) < 1) problems.push(`429 without a Retry-After of whole seconds, at least 1 (${JSON.stringify(retry)})`);
  }
}

function checkCors(sent: Sent, got: Answered, problems: string[]): void {
  const h = got.headers;
  const acao = h.get('access-control-allow-origin');
  switch (sent.declaration.cors) {
    case 'public':
      if (acao !== '*') problems.push(`Access-Control-Allow-Origin ${JSON.stringify(acao)} on a public route`);
      if (h.get('access-control-expose-headers') !== '*') problems.push('Access-Control-Expose-Headers is not *');
      break;
    case 'sdk': {
      const origin = sent.headers.get('origin');
      if (!/(^|,\s*)Origin(\s*,|$)/i.test(h.get('vary') ?? '')) problems.push('an SDK answer without Vary: Origin');
      if (acao !== null && acao !== (origin ?? '*')) problems.push(`Access-Control-Allow-Origin ${acao} for a request from ${origin ?? 'no origin'}`);
      // A refused origin reads its 403 too (the SDK explains it), exposing no other header.
      if (acao === null) problems.push(`no Access-Control-Allow-Origin on a ${got.status}`);
      break;
    }
    case 'none':
      if (acao !== null) problems.push(`Access-Control-Allow-Origin ${acao} on a same-origin route`);
      break;
  }
}

function checkApiError(sent: Sent, got: Answered, body: unknown, problems: string[]): void {
  if (sent.route === '/a2a' && isObject(body) && body.jsonrpc === '2.0') {
    // agents.md: an unexpected error is HTTP 500 with the JSON-RPC code -32603, saying nothing of its cause.
    if (got.status !== 500 || !isObject(body.error) || body.error.code !== -32603 || typeof body.error.message !== 'string')
      problems.push(`an A2A JSON-RPC error with HTTP ${got.status}: ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const mcp = sent.route === '/mcp' || sent.route === '/docs/mcp';
  if (mcp && isObject(body) && body.jsonrpc === '2.0') {
    // The MCP transport's own errors (mcp-servers.md, Errors over MCP).
    if (![400, 406, 415].includes(got.status))
      problems.push(`a JSON-RPC error with HTTP ${got.status}: the MCP transport's documented ones are 400, 406 and 415`);
    const e = body.error;
    if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== 'string' || body.id !== null)
      problems.push(`not a JSON-RPC error object: ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  if (!isObject(body) || !isObject(body.error)) {
    problems.push(`not the API error envelope: ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const extra = Object.keys(body).filter((k) => k !== 'error');
  if (extra.length > 0 && !(sent.route === '/api/v1' && got.status === 401 && extra.every((k) => INDEX_FIELDS.has(k)))) {
    problems.push(`fields beside error: ${extra.join(', ')}`);
  }
  const { status, code, message, ...rest } = body.error;
  if (Object.keys(rest).length > 0) problems.push(`error has other fields: ${Object.keys(rest).join(', ')}`);
  if (status !== got.status) problems.push(`error.status ${JSON.stringify(status)} is not the HTTP status ${got.status}`);
  if (typeof code !== 'string' || !(code in ERROR_CODES)) problems.push(`error.code ${JSON.stringify(code)} is not in the table`);
  else if (ERROR_CODES[code as keyof typeof ERROR_CODES] !== got.status)
    problems.push(`error.code ${code} goes with ${ERROR_CODES[code as keyof typeof ERROR_CODES]}, not ${got.status}`);
  if (typeof message !== 'string' || message.length === 0) problems.push('error.message is not a non-empty string');
}

function checkOAuthError(got: Answered, body: unknown, problems: string[]): void {
  if (!isObject(body) || typeof body.error !== 'string') {
    problems.push(`not an RFC 6749 error: ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const extra = Object.keys(body).filter((k) => k !== 'error' && k !== 'error_description');
  if (extra.length > 0) problems.push(`fields beside error and error_description: ${extra.join(', ')}`);
  if (!(OAUTH_ERROR_CODES as readonly string[]).includes(body.error)) problems.push(`error ${JSON.stringify(body.error)} is not an OAuth error code of ours`);
  if ('error_description' in body && typeof body.error_description !== 'string') problems.push('error_description is not a string');
  if (got.status === 429 && body.error !== 'rate_limited') problems.push(`a 429 with error ${body.error}`);
}

function checkChallenge(sent: Sent, got: Answered, body: unknown, problems: string[]): void {
  const challenge = got.headers.get('www-authenticate');
  if (sent.declaration.errors !== 'api' || (got.status !== 401 && got.status !== 403)) return;
  const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
  if (sent.route.startsWith('/functions/v1')) {
    if (challenge !== null) problems.push(`the SDK surface sent a challenge: ${challenge}`);
    return;
  }
  if (code === 'invalid_token' || code === 'insufficient_scope') {
    if (!challenge?.startsWith('Bearer ') || !/resource_metadata="[^"]+"/.test(challenge))
      problems.push(`a ${got.status} ${code} without a Bearer challenge naming resource_metadata (${JSON.stringify(challenge)})`);
    if (code === 'insufficient_scope' && (!/error="insufficient_scope"/.test(challenge ?? '') || !/(^|[ ,])scope="[^"]+"/.test(challenge ?? ''))) {
      problems.push('insufficient_scope without error="insufficient_scope" and the scope in the challenge');
    }
  }
}

export function judge(sent: Sent, got: Answered): Verdict {
  const problems: string[] = [];
  const h = got.headers;
  const contentType = h.get('content-type') ?? '';
  const json = contentType.startsWith('application/json');
  const parsed = json ? parse(got.body) : undefined;
  const body = parsed?.ok ? parsed.value : undefined;

  let documented5xx = false;
  if (got.status >= 500) {
    const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
    // errors.md: 502 `account_unavailable` when the token's user was deleted after it was issued.
    const accountRead = sent.declaration.methods.GET?.credential.kind === 'bearer' && sent.declaration.apiVersion;
    documented5xx = got.status === 502 && sent.deletedUser && accountRead && (code === 'account_unavailable' || sent.method === 'HEAD');
    if (!documented5xx) problems.push(`unexpected ${got.status}`);
  }
  if (!REQUEST_ID.test(h.get('x-request-id') ?? '')) problems.push(`X-Request-Id ${JSON.stringify(h.get('x-request-id'))}`);
  const version = h.get('api-version');
  if (sent.declaration.apiVersion ? version !== '1' : version !== null)
    problems.push(`API-Version ${JSON.stringify(version)} on a route that ${sent.declaration.apiVersion ? 'declares' : 'does not declare'} it`);
  checkRateLimit(sent, got, problems);
  checkCors(sent, got, problems);

  const cache = h.get('cache-control');
  if (cache === null) problems.push('no Cache-Control');
  else {
    if (got.status >= 400 && !/\bno-store\b/.test(cache)) problems.push(`an error with Cache-Control: ${cache}`);
    if ((sent.headers.has('authorization') || sent.headers.has('x-api-key')) && /\bpublic\b/.test(cache))
      problems.push(`a credentialed answer with Cache-Control: ${cache}`);
  }

  const operation = sent.method === 'OPTIONS' ? undefined : sent.declaration.methods[sent.method === 'HEAD' ? 'GET' : (sent.method as 'GET')];
  const credentialed = sent.headers.has('authorization') || sent.headers.has('x-api-key');
  if (operation?.cache && got.status >= 200 && got.status < 300 && !credentialed && cache !== operation.cache) {
    problems.push(`a ${got.status} with Cache-Control ${JSON.stringify(cache)}, where its operation declares ${operation.cache}`);
  }
  if (sent.method === 'POST' && operation && got.status < 400) {
    const cap = operation.maxBodyBytes ?? MAX_BODY_BYTES;
    const declared = Number(sent.headers.get('content-length') ?? '0');
    if ((sent.bodyBytes ?? 0) > cap || declared > cap)
      problems.push(`a body of ${Math.max(sent.bodyBytes ?? 0, declared)} bytes accepted (${got.status}) where at most ${cap} are`);
  }
  const accountRead = sent.declaration.methods.GET?.credential.kind === 'bearer' && sent.declaration.apiVersion;
  if (
    accountRead &&
    got.status === 200 &&
    /^Bearer +svc_sandbox *$/i.test(sent.headers.get('authorization') ?? '') &&
    got.headers.get('service-sandbox') !== 'true'
  ) {
    problems.push('a sandbox answer without Service-Sandbox: true');
  }

  if (sent.method === 'OPTIONS' && got.status < 400) {
    if (got.status !== 204) problems.push(`a preflight answered ${got.status}`);
    if (!h.get('allow')) problems.push('a preflight without Allow');
  }
  if (got.status === 405) {
    const allow = h.get('allow');
    if (!allow) problems.push('405 without Allow');
    else if (allow.split(/,\s*/).includes(sent.method)) problems.push(`405 for ${sent.method}, which Allow lists (${allow})`);
  }
  if (got.status === 429 && !sent.declaration.rateLimit) problems.push('429 on a surface that is not rate limited');

  if (sent.method === 'HEAD' || got.status === 204 || got.status === 202 || got.status === 304) {
    if (got.body !== '') problems.push(`a body on a ${sent.method === 'HEAD' ? 'HEAD answer' : got.status}`);
    return { problems, documented5xx };
  }

  if (got.status >= 400) {
    if (sent.route === '/oauth/authorize' && contentType.startsWith('text/html') && (got.status === 400 || got.status === 403)) {
      // The authorization endpoint's own error page (errors.md: shown on Monetize's own page).
    } else if (!json || !parsed?.ok) {
      problems.push(`an error that is not JSON (${contentType || 'no Content-Type'}): ${got.body.slice(0, 200)}`);
    } else if (sent.declaration.errors === 'oauth') {
      checkOAuthError(got, body, problems);
    } else {
      checkApiError(sent, got, body, problems);
    }
    checkChallenge(sent, got, body, problems);
    return { problems, documented5xx };
  }

  if (json && !parsed?.ok) problems.push(`a ${got.status} whose JSON does not parse: ${got.body.slice(0, 200)}`);
  if (got.status >= 300 && got.status < 400 && !h.get('location')) problems.push(`a ${got.status} without Location`);
  if (sent.route === '/a2a' && got.status === 200) {
    const ok = isObject(body) && body.jsonrpc === '2.0' && 'result' in body !== 'error' in body;
    if (!ok) problems.push(`an A2A answer that is not a JSON-RPC response: ${got.body.slice(0, 200)}`);
    else if ('error' in body && (!isObject(body.error) || !Number.isInteger(body.error.code) || typeof body.error.message !== 'string')) {
      problems.push(`an A2A JSON-RPC error object of the wrong shape: ${got.body.slice(0, 200)}`);
    }
  }
  return { problems, documented5xx };
}
