import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/**
 * What answers a path under one of the API's prefixes (`/api/v1`, `/functions/v1`, `/oauth`,
 * `/mcp`, `/docs/mcp`, `/a2a`, `/ask`) that no route has: `app/<prefix>/[...unknown]/route.ts`
 * (`[[...unknown]]` where the prefix itself has no route). Every method is a 404 in the error
 * envelope, with the headers of that surface (request id, rate limit, `API-Version` for REST,
 * CORS), instead of the site's HTML page. It counts against the client's budget, as any request.
 */
export type UnknownPathRoute = Extract<keyof typeof ROUTES, `${string}unknown]` | `${string}unknown]]`>;

export function unknownPathRoute(path: UnknownPathRoute) {
  return defineRoute(ROUTES[path], {}, { unknownPath: true });
}
