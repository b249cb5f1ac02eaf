import type { NextConfig } from 'next';
// @ts-expect-error: a plain ES module script, without declarations.
import { normalizeRequestTarget } from '../../scripts/request-path.mjs';

/**
 * What happens to a request target before a route handler sees it, in production: first
 * scripts/serve.mjs normalizes the path (scripts/request-path.mjs, RFC 3986 §6.2.2), then Next's
 * router picks the route file. This module plays Next's part for the fuzzer, for the route files
 * the app has:
 *
 * - a path with `//` or `\` is answered 308 to the path with single slashes (serve.mjs has made
 *   them one already under the API's prefixes, whose routes answer them), and so are the
 *   `redirects` of next.config.ts, and (unless it sets `skipTrailingSlashRedirect`) a path ending
 *   in `/` to the path without it; a client follows them, so the fuzzer routes the target it
 *   would be sent to. A trailing slash that is not redirected is ignored when matching routes;
 * - the `beforeFiles` rewrites of next.config.ts first (the home page's markdown twin), then static
 *   routes, then the `afterFiles` rewrites (the other markdown twins), then dynamic routes, segment
 *   by segment: static before `[x]`, before `[...x]`, before `[[...x]]`;
 * - dynamic segments are handed to the route percent-decoded (`decodeURIComponent` per segment);
 *   a segment that does not decode would be Next's own error, which no route handler sees, but
 *   serve.mjs has escaped its `%` already, so it decodes to the text it is;
 * - a path no route file has and no rewrite takes is the site's page (HTML), not a route handler.
 */

export type Routed =
  | { kind: 'route'; route: string; params: Record<string, string | string[]>; target: string; rewrittenFrom?: string }
  | { kind: 'next'; status: number; why: string; target: string }
  /** A target scripts/serve.mjs cannot normalize: it answers 400 itself and never calls Next. */
  | { kind: 'refused'; status: 400; why: string; target: string }
  | { kind: 'site'; target: string };

export interface Rewrite {
  source: string;
  destination: string;
  has?: { type: string; key: string; value?: string }[];
  missing?: { type: string; key: string; value?: string }[];
}

/** What of next.config.ts the router plays: its rewrites (`beforeFiles`, `afterFiles`), redirects and trailing-slash rule. */
export interface RoutingConfig {
  beforeFiles: readonly Rewrite[];
  rewrites: readonly Rewrite[];
  redirects: readonly Rewrite[];
  skipTrailingSlashRedirect: boolean;
}

/** What the router plays of a Next configuration (next.config.ts's `nextConfig`): its rules, read as Next reads them. */
export async function routingConfig(config: NextConfig): Promise<RoutingConfig> {
  const rewrites = config.rewrites ? await config.rewrites() : [];
  return {
    beforeFiles: (Array.isArray(rewrites) ? [] : rewrites.beforeFiles) as Rewrite[],
    rewrites: (Array.isArray(rewrites) ? rewrites : rewrites.afterFiles) as Rewrite[],
    redirects: (config.redirects ? await config.redirects() : []) as Rewrite[],
    skipTrailingSlashRedirect: config.skipTrailingSlashRedirect === true,
  };
}

/** The request target as scripts/serve.mjs hands it to Next. */
export function normalizeTarget(raw: string): string {
  return normalizeRequestTarget(raw) as string;
}

type Segment = { kind: 'static'; name: string } | { kind: 'dynamic' | 'catchall' | 'optional'; name: string };

function parseRoute(path: string): Segment[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((s): Segment => {
      let m = /^\[\[\.\.\.(\w+)\]\]$/.exec(s);
      if (m) return { kind: 'optional', name: m[1]! };
      m = /^\[\.\.\.(\w+)\]$/.exec(s);
      if (m) return { kind: 'catchall', name: m[1]! };
      m = /^\[(\w+)\]$/.exec(s);
      if (m) return { kind: 'dynamic', name: m[1]! };
      return { kind: 'static', name: s };
    });
}

const RANK = { static: 0, dynamic: 1, catchall: 2, optional: 3 } as const;

/** The raw segments each dynamic segment of `route` takes from `segments`, or null when it does not match. */
function match(route: Segment[], segments: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.length; i++) {
    const r = route[i]!;
    if (r.kind === 'catchall' || r.kind === 'optional') {
      const rest = segments.slice(i);
      if (r.kind === 'catchall' && rest.length === 0) return null;
      if (rest.length > 0) params[r.name] = rest;
      return params;
    }
    const s = segments[i];
    if (s === undefined) return null;
    if (r.kind === 'static' && r.name !== s) return null;
    if (r.kind === 'dynamic') params[r.name] = s;
  }
  return route.length === segments.length ? params : null;
}

/** Negative when `a` is the more specific route, as Next sorts them. */
function compareRoutes(a: Segment[], b: Segment[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const ka = a[i] ? RANK[a[i]!.kind] : -1;
    const kb = b[i] ? RANK[b[i]!.kind] : -1;
    if (ka !== kb) return ka - kb;
  }
  return 0;
}

function headerMatches(condition: { type: string; key: string; value?: string }, headers: Headers): boolean {
  if (condition.type !== 'header') throw new Error(`the fuzzer's router does not play ${condition.type} conditions`);
  const value = headers.get(condition.key);
  return value !== null && (condition.value === undefined || new RegExp(`^${condition.value}$`).test(value));
}

function ruleMatcher(rule: Rewrite): (path: string, headers: Headers) => string | null {
  // path-to-regexp's `:name(regex)` as a named group; the rest of the source is a regex already.
  if (/\/:\w+(?![\w(])/.test(rule.source)) throw new Error(`the fuzzer's router plays only \`/:name(regex)\` parameters, not ${rule.source}`);
  const source = new RegExp(`^${rule.source.replace(/\/:(\w+)\(/g, '/(?<$1>')}$`);
  return (path, headers) => {
    const m = source.exec(path);
    if (!m) return null;
    if (!(rule.has ?? []).every((c) => headerMatches(c, headers))) return null;
    if ((rule.missing ?? []).some((c) => headerMatches(c, headers))) return null;
    return rule.destination.replace(/:(\w+)/g, (_, name: string) => m.groups?.[name] ?? '');
  };
}

export class Router {
  private readonly routes: { path: string; segments: Segment[] }[];
  private readonly beforeFiles: ((path: string, headers: Headers) => string | null)[];
  private readonly rewrites: ((path: string, headers: Headers) => string | null)[];
  private readonly redirects: ((path: string, headers: Headers) => string | null)[];
  private readonly trailingSlashRedirect: boolean;

  /** `routePaths`: the route files' paths (`/api/v1/[...unknown]`); `config`: what next.config.ts says. */
  constructor(routePaths: readonly string[], config: RoutingConfig) {
    this.routes = routePaths.map((path) => ({ path, segments: parseRoute(path) })).sort((a, b) => compareRoutes(a.segments, b.segments));
    this.beforeFiles = config.beforeFiles.map(ruleMatcher);
    this.rewrites = config.rewrites.map(ruleMatcher);
    this.redirects = config.redirects.map(ruleMatcher);
    this.trailingSlashRedirect = !config.skipTrailingSlashRedirect;
  }

  /** Where a raw request target (path and query, as a client sent it) ends up. */
  route(raw: string, headers: Headers): Routed {
    let target: string;
    try {
      target = normalizeTarget(raw);
    } catch (err) {
      return { kind: 'refused', status: 400, why: `scripts/request-path.mjs threw ${String(err)}; scripts/serve.mjs answers 400 invalid_request`, target: raw };
    }
    const q = target.indexOf('?');
    let path = q < 0 ? target : target.slice(0, q);
    const query = q < 0 ? '' : target.slice(q);
    // Next's 308s, followed as a client would.
    if (/\/\/|\\/.test(path)) path = path.replace(/[\\/]+/g, '/');
    for (let hops = 0; hops < 5; hops++) {
      const to = this.redirects.map((r) => r(path, headers)).find((d) => d !== null);
      if (to === undefined || to === null) break;
      path = to;
    }
    if (this.trailingSlashRedirect && path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '') || '/';
    target = path + query;

    for (const rewrite of this.beforeFiles) {
      const destination = rewrite(path, headers);
      if (destination === null) continue;
      // Rewritten before the route files are tested: the destination's route, or a page.
      const to = this.find(destination.split('/').filter(Boolean), () => true);
      return to ? this.answer(to.path, to.params, target, path) : { kind: 'site', target };
    }
    const segments = path.split('/').filter(Boolean);
    const found = this.find(segments, (r) => r.segments.every((s) => s.kind === 'static'));
    if (found) return this.answer(found.path, found.params, target);
    for (const rewrite of this.rewrites) {
      const destination = rewrite(path, headers);
      if (destination === null) continue;
      const to = this.find(destination.split('/').filter(Boolean), () => true);
      if (to) return this.answer(to.path, to.params, target, path);
    }
    const dynamic = this.find(segments, (r) => r.segments.some((s) => s.kind !== 'static'));
    if (dynamic) return this.answer(dynamic.path, dynamic.params, target);
    return { kind: 'site', target };
  }

  private find(segments: string[], which: (r: { segments: Segment[] }) => boolean) {
    for (const r of this.routes) {
      if (!which(r)) continue;
      const params = match(r.segments, segments);
      if (params) return { path: r.path, params };
    }
    return undefined;
  }

  private answer(route: string, raw: Record<string, string | string[]>, target: string, rewrittenFrom?: string): Routed {
    const params: Record<string, string | string[]> = {};
    for (const [name, values] of Object.entries(raw)) {
      try {
        params[name] = Array.isArray(values) ? values.map((v) => decodeURIComponent(v)) : decodeURIComponent(values);
      } catch {
        return { kind: 'next', status: 400, why: `segment of ${route} does not percent-decode`, target };
      }
    }
    return { kind: 'route', route, params, target, ...(rewrittenFrom ? { rewrittenFrom } : {}) };
  }
}
