import type { Route, RouteHandler } from '@/lib/platform/http/kernel';
import { createServices, type ServiceOverrides, type Services } from '@/lib/services';

/**
 * The services the routes of a test run with. Production modules keep no setters: the kernel
 * hands each handler the services it was bound to, and tests bind routes to these (through
 * `handlersOf`). A suite with a database installs its own (`suiteDatabase`); otherwise a test
 * runs with services whose database cannot be opened, so nothing reaches the developer's
 * `.data/` by accident.
 */

let current: Services | undefined;

/** Services for a test: no database unless one is given, and the environment's rate limit. */
export function makeServices(overrides: ServiceOverrides = {}): Services {
  return createServices({ database: NO_DATABASE, ...overrides });
}

const NO_DATABASE = () => Promise.reject(new Error('this test opened no database'));

export function testServices(): Services {
  return (current ??= makeServices());
}

/** Runs the routes of the tests that follow with `services` (undefined: fresh ones without a database). */
export function setTestServices(services: Services | undefined): void {
  current = services;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
type Method = (typeof METHODS)[number];
export type TestHandler = (request: Request, context?: Parameters<RouteHandler>[1]) => Promise<Response>;

/** A route's handlers, each running with `services` or the test's services at the time of the call. */
export function bound(route: Route, services?: Services): Record<Method, TestHandler> & Pick<Route, 'dispatch'> {
  const handlers = Object.fromEntries(
    METHODS.map((m) => [m, ((request, context) => route.with(services ?? testServices())[m](request, context)) satisfies TestHandler]),
  ) as Record<Method, TestHandler>;
  return { ...handlers, dispatch: route.dispatch };
}
