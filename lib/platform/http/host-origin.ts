/**
 * DNS-rebinding protection, for the MCP endpoints (MCP, Basic: Transports, Streamable HTTP,
 * security warning: servers MUST validate the `Origin` of every request, and answer 403 when it
 * is present and not allowed). A page on an attacker's domain whose name was rebound to our
 * address still sends that domain as `Host` and its own origin as `Origin`; so a request is
 * served only when
 *
 * - its `Host` is one of the deployment's own names: the host of PUBLIC_BASE_URL, the names
 *   Vercel gives the deployment (VERCEL_URL, VERCEL_BRANCH_URL, VERCEL_PROJECT_PRODUCTION_URL),
 *   those listed in MCP_ALLOWED_HOSTS, or a loopback name (`localhost`, `127.0.0.1`, `[::1]`,
 *   any port: a browser sends those only to a server on its own machine, never for a rebound
 *   name), and
 * - its `Origin` is absent (servers, CLIs and native apps send none), or names one of those
 *   names (the deployment's own pages; loopback, for local tools such as the MCP Inspector), or
 *   is listed in MCP_ALLOWED_ORIGINS (browser-based MCP clients elsewhere).
 *
 * The same check as the MCP SDK's `allowedHosts`/`allowedOrigins` (enableDnsRebindingProtection
 * of its transport), which compares exact header values and answers in JSON-RPC; ours allows any
 * loopback port, derives the names from the configuration, and lets the route answer in its own
 * error shape.
 */

export interface HostOriginPolicy {
  /** The deployment's own names, as `Host` carries them (lowercase, `host[:port]`, default port omitted). */
  readonly hosts: ReadonlySet<string>;
  /** The web origins allowed besides loopback ones (`scheme://host[:port]`, as `URL.origin` writes them). */
  readonly origins: ReadonlySet<string>;
}

export interface HostOriginConfig {
  PUBLIC_BASE_URL: string;
  MCP_ALLOWED_HOSTS: readonly string[];
  MCP_ALLOWED_ORIGINS: readonly string[];
  VERCEL_URL?: string;
  VERCEL_BRANCH_URL?: string;
  VERCEL_PROJECT_PRODUCTION_URL?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A hostname as `URL` gives it (IPv6 in brackets), loopback: `localhost`, `127.0.0.1`, `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase());
}

/** `Host` (`name[:port]`) as `URL` normalises it, or undefined when it is not one. */
export function parseHost(value: string): URL | undefined {
  if (!/^[^\s/?#@\\]+$/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    return url.host === value.toLowerCase() || url.host === value.toLowerCase().replace(/:80$/, '') ? url : undefined;
  } catch {
    return undefined;
  }
}

const policies = new WeakMap<HostOriginConfig, HostOriginPolicy>();

/** The policy a configuration describes (`env()`), worked out once per configuration object. */
export function hostOriginPolicy(config: HostOriginConfig): HostOriginPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = policyOf(config)));
  return policy;
}

function policyOf(config: HostOriginConfig): HostOriginPolicy {
  const base = new URL(config.PUBLIC_BASE_URL);
  const named = [config.VERCEL_URL, config.VERCEL_BRANCH_URL, config.VERCEL_PROJECT_PRODUCTION_URL, ...config.MCP_ALLOWED_HOSTS]
    .filter((h): h is string => !!h)
    .map((h) => h.trim().toLowerCase());
  const hosts = new Set([base.host, ...named]);
  const origins = new Set([base.origin, ...named.map((h) => `https://${h}`), ...config.MCP_ALLOWED_ORIGINS.map((o) => new URL(o).origin)]);
  return { hosts, origins };
}

/** What a request says about where it was sent and from where. */
export interface Caller {
  /** `Host`: in a Request made without one (tests, in-process calls), the URL's host, which Next builds from it. */
  host: string;
  origin: string | null;
}

export function callerOf(request: Request): Caller {
  return { host: request.headers.get('host') ?? new URL(request.url).host, origin: request.headers.get('origin') };
}

function shown(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/**
 * Why the request must be refused (a sentence for the 403), or undefined when it may be served.
 * `Host` first: a rebound name is refused whatever `Origin` says.
 */
export function hostOrOriginRefusal(policy: HostOriginPolicy, caller: Caller): string | undefined {
  const host = parseHost(caller.host);
  if (!host || !(isLoopbackHostname(host.hostname) || policy.hosts.has(host.host))) {
    return `This server does not answer for the host ${shown(caller.host)}: send the request to one of this deployment's own addresses.`;
  }
  if (caller.origin === null) return undefined;
  if (!allowedOrigin(policy, caller.origin)) {
    return `Requests from a web page at ${shown(caller.origin)} are not allowed (DNS-rebinding protection). Call from a server or a native client, which sends no Origin, or ask the operator to allow that origin.`;
  }
  return undefined;
}

function allowedOrigin(policy: HostOriginPolicy, origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (a sandboxed frame, a file) and anything else that is not an origin
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  if (url.origin !== origin.toLowerCase()) return false; // a path, credentials or a query: not an Origin header
  return isLoopbackHostname(url.hostname) || policy.origins.has(url.origin);
}

/**
 * A form or server action posted to one of our pages from a page of another origin: `Origin`
 * present and naming another host than the one the request was sent to (`X-Forwarded-Host`,
 * which only our platform sets, or `Host`), or the opaque `null` a sandboxed frame sends. Next
 * refuses such a server action too, but only by throwing inside the action: a 500 and a line in
 * the log for every attempt. `proxy.ts` answers it 403 first. A post without `Origin` (a
 * browser from before 2020, or a script) is left to Next's own check.
 */
export function isCrossOriginPost(method: string, headers: Headers): boolean {
  if (method !== 'POST') return false;
  const origin = headers.get('origin');
  if (origin === null) return false;
  if (origin === 'null') return true;
  const host = headers.get('x-forwarded-host') ?? headers.get('host');
  try {
    return host === null || new URL(origin).host !== host.toLowerCase();
  } catch {
    return true;
  }
}
