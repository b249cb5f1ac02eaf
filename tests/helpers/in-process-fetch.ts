import { env } from '@/lib/platform/env';
import type { RoutePath } from '@/lib/schemas/registry';
import { handlersOf } from './routes';

/**
 * A `fetch` that answers from route handlers in this process, for protocol SDK clients (MCP, A2A)
 * that take a fetch function: each request goes through the same kernel as in production, with
 * the test's services and a fixed client address, and never touches the network. Only the given
 * paths of this service are routed.
 */
export function inProcessFetch(paths: RoutePath[], options: { clientIp?: string } = {}): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input instanceof URL ? input.toString() : input, init);
    const url = new URL(request.url);
    const path = paths.find((p) => p === url.pathname);
    if (url.origin !== env().PUBLIC_BASE_URL || !path) return new Response('not routed in this test', { status: 404 });
    const handler = handlersOf(path)[request.method as 'GET'] as ReturnType<typeof handlersOf>['GET'] | undefined;
    if (!handler) return new Response(null, { status: 405 });
    const headers = new Headers(request.headers);
    headers.set('x-forwarded-for', options.clientIp ?? '192.0.2.88');
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    return handler(new Request(request.url, { method: request.method, headers, body }), { params: Promise.resolve({}) });
  }) as typeof fetch;
}
