/// <reference types="vite/client" />
import { declarationOf, routeOf } from '@/lib/platform/http/kernel';
import type { RoutePath } from '@/lib/schemas/registry';
import type { Services } from '@/lib/services';
import { bound } from './services';

export type { TestHandler } from './services';

/**
 * Every route file under app/ (the glob skips dot folders unless named), loaded, with the URL path its place in app/ gives it:
 * `app/api/v1/me/apps/route.ts` is `/api/v1/me/apps`; dynamic segments keep their brackets
 * (`/markdown/[[...slug]]`), as the registry writes them; route groups `(name)` vanish.
 */
const modules = import.meta.glob<Record<string, unknown>>(['/app/**/route.{ts,tsx}', '/app/.well-known/**/route.{ts,tsx}'], { eager: true });

export interface RouteFile {
  file: string;
  path: string;
  module: Record<string, unknown>;
}

export const ROUTE_FILES: RouteFile[] = Object.entries(modules).map(([file, module]) => ({
  file,
  path:
    file
      .replace(/^\/app/, '')
      .replace(/\/route\.tsx?$/, '')
      .split('/')
      .filter((s) => !/^\(.*\)$/.test(s))
      .join('/') || '/',
  module,
}));

/**
 * The handlers a registry path's route file exports, e.g. `handlersOf('/api/v1/me').GET`, each
 * running with `services` or, by default, the test's services at the time of the call.
 */
export function handlersOf(path: RoutePath, services?: Services): ReturnType<typeof bound> {
  const found = ROUTE_FILES.find((f) => f.path === path);
  if (!found) throw new Error(`No route file for ${path}`);
  if (declarationOf(found.module.GET)?.path !== path) throw new Error(`${found.file} does not run the registry's ${path}`);
  return bound(routeOf(found.module.GET)!, services);
}
