import { env } from '@/lib/env';

/**
 * A `fetch` that answers from route handlers in this process, for protocol SDK clients (MCP, A2A)
 * that take a fetch function: each request goes through the same kernel as in production, with a
 * fixed client address, and never touches the network. Only URLs of this service are routed.
 */

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Response | Promise<Response>;
type RouteModule = Partial<Record<string, unknown>>;

export function inProcessFetch(routes: Record<string, RouteModule>, options: { clientIp?: string } = {}): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input instanceof URL ? input.toString() : input, init);
    const url = new URL(request.url);
    const route = url.origin === env().PUBLIC_BASE_URL ? routes[url.pathname] : undefined;
    if (!route) return new Response('not routed in this test', { status: 404 });
    const handler = route[request.method] as Handler | undefined;
    if (!handler) return new Response(null, { status: 405 });
    const headers = new Headers(request.headers);
    headers.set('x-forwarded-for', options.clientIp ?? '192.0.2.88');
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    return handler(new Request(request.url, { method: request.method, headers, body }), { params: Promise.resolve({}) });
  }) as typeof fetch;
}
