// What Next's server loads before anything else: AsyncLocalStorage on globalThis, which the
// request scope below needs (without it Next's stores are stand-ins that refuse to run).
import 'next/dist/server/node-environment-baseline';
import { NextRequest } from 'next/server';
import { workAsyncStorage } from 'next/dist/server/app-render/work-async-storage.external';
import { workUnitAsyncStorage } from 'next/dist/server/app-render/work-unit-async-storage.external';
import { createWorkStore } from 'next/dist/server/async-storage/work-store';
import { createRequestStoreForAPI } from 'next/dist/server/async-storage/request-store';

/**
 * Calls a route handler as Next's app router does: with a `NextRequest`, inside the work and
 * request stores of an API route, so that `cookies()` and `headers()` from `next/headers` work
 * (next-auth's route handler reads both) and `request.nextUrl` is there. Only what an API route
 * needs is set up; rendering is not.
 */

type RouteHandler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export function nextRequest(url: string, init: { method: string; headers: Headers; body?: string | Uint8Array<ArrayBuffer> }): NextRequest {
  return new NextRequest(url, { method: init.method, headers: init.headers, ...(init.body === undefined ? {} : { body: init.body }) });
}

export function callRoute(route: string, handler: RouteHandler, request: NextRequest, params: Record<string, string | string[]>): Promise<Response> {
  const workStore = createWorkStore({
    page: `${route}/route`,
    renderOpts: { experimental: {} },
    isPrefetchRequest: false,
    buildId: 'fuzz',
    previouslyRevalidatedTags: [],
  } as unknown as Parameters<typeof createWorkStore>[0]);
  const requestStore = createRequestStoreForAPI(
    request as unknown as Parameters<typeof createRequestStoreForAPI>[0],
    request.nextUrl as unknown as Parameters<typeof createRequestStoreForAPI>[1],
    undefined as unknown as Parameters<typeof createRequestStoreForAPI>[2],
    undefined,
    undefined as unknown as Parameters<typeof createRequestStoreForAPI>[4],
    undefined,
  );
  return workAsyncStorage.run(workStore, () => workUnitAsyncStorage.run(requestStore, () => handler(request, { params: Promise.resolve(params) })));
}
