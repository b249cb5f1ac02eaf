import { describe, expect, it } from 'vitest';
import { nextConfig } from '@/next.config';
import { accountEndpoints, publicEndpoints, sdkEndpoints } from '@/lib/routes/api';
import { BATCH_TARGETS } from '@/lib/routes/batch';
import { HTTP_METHODS } from '@/lib/platform/http/declaration';
import { declarationOf } from '@/lib/platform/http/kernel';
import { ACCOUNT_TOOLS } from '@/lib/agents/mcp/account-tools';
import { buildOpenApiDocument } from '@/lib/docs/openapi/document';
import { apiKeyOperations, batchPaths, operations, protectedOperations, restOperations, ROUTES, serverKeyOperations } from '@/lib/schemas/registry';
import { ACCOUNT_ROUTES } from '../helpers/account';
import { ROUTE_FILES } from '../helpers/routes';
import { SDK_KEY_ROUTES, SERVER_KEY_ROUTES } from '../helpers/sdk';

/**
 * The route registry (lib/schemas/registry.ts) is the one list of routes: every route file runs its
 * entry through the kernel, every entry has its file, and every other list of routes in the
 * code equals what the registry says.
 */

describe('route files and the registry', () => {
  it('finds the route files', () => {
    expect(ROUTE_FILES.length).toBeGreaterThan(20);
  });

  it.each(ROUTE_FILES.map((f) => [f.path, f]))('%s runs its registry entry through the kernel, for every method', (_, { path, module }) => {
    const entry = (ROUTES as Record<string, unknown>)[path];
    expect(entry, `no registry entry for ${path}: declare it in lib/schemas/registry.ts`).toBeDefined();
    for (const m of HTTP_METHODS) {
      // Every method is exported, so an undeclared one gets the kernel's 405 and not Next's.
      expect(declarationOf(module[m]), `${m} is not a kernel handler of ${path}`).toBe(entry);
    }
    const strays = Object.entries(module).filter(([k, v]) => typeof v === 'function' && declarationOf(v) === undefined && k !== 'generateStaticParams');
    expect(strays.map(([k]) => k)).toEqual([]);
  });

  it('has a route file for every entry', () => {
    expect(Object.keys(ROUTES).sort()).toEqual(ROUTE_FILES.map((f) => f.path).sort());
  });
});

describe('lists derived from the registry', () => {
  const rest = restOperations();

  it('the OpenAPI document has exactly the REST operations', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(documented.sort()).toEqual(rest.map((op) => `${op.method} ${op.path}`).sort());
  });

  it('the index lists every REST operation: the public ones, the account ones with their scope, and the SDK ones', () => {
    const kind = (op: (typeof rest)[number]) => op.declaration.credential.kind;
    const sdk = (op: (typeof rest)[number]) => op.path.startsWith('/functions/v1/');
    expect(publicEndpoints().map((e) => `${e.method} ${e.path}`)).toEqual(
      rest.filter((op) => kind(op) !== 'bearer' && !sdk(op)).map((op) => `${op.method} ${op.path}`),
    );
    expect(accountEndpoints()).toEqual(
      rest.flatMap((op) => (op.declaration.credential.kind === 'bearer' ? [{ method: op.method, path: op.path, scope: op.declaration.credential.scope }] : [])),
    );
    expect(sdkEndpoints().map((e) => `${e.method} ${e.path}`)).toEqual(rest.filter(sdk).map((op) => `${op.method} ${op.path}`));
    // The SDK surface is what an app calls: its key (or its server's), or an ad's token (events, clicks), never a user's token;
    // and what an advertiser sends back: conversions, with its conversions key or its public tag id.
    for (const op of rest.filter(sdk)) expect(['api-key', 'app-key', 'optional-api-key', 'conversion-key', 'none'], op.path).toContain(kind(op));
    expect(publicEndpoints().length + accountEndpoints().length + sdkEndpoints().length).toBe(rest.length);
  });

  it('the batch dispatches to exactly the GET operations marked batchable', () => {
    expect([...BATCH_TARGETS].sort()).toEqual([...batchPaths()].sort());
    expect(batchPaths()).toEqual(expect.arrayContaining(['/api/v1/search', '/api/v1/me/apps']));
    for (const p of batchPaths()) expect(ROUTES[p].methods).toHaveProperty('GET');
  });

  it('each MCP account tool has the scope and REST operation of the entry that names it', () => {
    const named = operations().filter((op) => op.declaration.mcpTool);
    expect(Object.keys(ACCOUNT_TOOLS).sort()).toEqual(named.map((op) => op.declaration.mcpTool).sort());
    for (const op of named) {
      const credential = op.declaration.credential;
      expect(ACCOUNT_TOOLS[op.declaration.mcpTool!]).toEqual({
        scope: credential.kind === 'bearer' ? credential.scope : undefined,
        rest: `${op.method} ${op.path}`,
      });
    }
  });

  it('the bad-credential matrix runs on every REST operation that needs a scoped token', () => {
    expect(ACCOUNT_ROUTES.map((r) => [r.path, r.scope])).toEqual(
      protectedOperations()
        .filter((op) => op.route.apiVersion)
        .map((op) => [op.path, op.credential.scope]),
    );
    expect(ACCOUNT_ROUTES.length).toBeGreaterThan(0);
  });

  it('the bad-key matrix runs on every operation that needs an SDK key', () => {
    expect(SDK_KEY_ROUTES.map((r) => `${r.method} ${r.path}`)).toEqual(
      operations()
        .filter((op) => op.declaration.credential.kind === 'api-key' || op.declaration.credential.kind === 'app-key')
        .map((op) => `${op.method} ${op.path}`),
    );
    expect(apiKeyOperations().map((op) => op.path)).toContain('/functions/v1/validate-key');
    expect(SERVER_KEY_ROUTES.map((r) => `${r.method} ${r.path}`)).toEqual(serverKeyOperations().map((op) => `${op.method} ${op.path}`));
  });

  describe('the markdown-twin rewrites leave every route alone and rewrite site pages', async () => {
    const rewrites = (await nextConfig.rewrites!()) as { afterFiles: { source: string; destination: string }[] };
    // Next compiles `/:path(<regex>)…` sources with path-to-regexp; the regex is what decides.
    const regexOf = (source: string) => new RegExp(`^${source.replace('/:path(', '/(')}$`);
    const [twin, accept] = rewrites.afterFiles.map((r) => regexOf(r.source)) as [RegExp, RegExp];
    const routes = Object.keys(ROUTES).map((p) => p.replace(/\/\[.*$/, '/anything'));

    it.each(routes)('%s and the paths below it', (p) => {
      for (const path of [p, `${p}/below`]) {
        expect(accept.test(path), path).toBe(false);
        expect(twin.test(`${path}.md`), `${path}.md`).toBe(false);
      }
    });

    it.each(['/', '/docs', '/docs/quickstart', '/pricing', '/docs/mcp-servers', '/askew', '/mcpx'])('rewrites the site page %s', (p) => {
      expect(accept.test(p)).toBe(true);
      if (p !== '/') expect(twin.test(`${p}.md`)).toBe(true);
    });

    it('rewrites the home page, a route file of its own, before the route files, and nothing else', async () => {
      const { beforeFiles } = (await nextConfig.rewrites!()) as {
        beforeFiles: { source: string; destination: string; has?: { key: string; value?: string }[] }[];
      };
      expect(beforeFiles).toEqual([{ source: '/', has: [{ type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' }], destination: '/markdown' }]);
      expect(new RegExp(beforeFiles[0]!.has![0]!.value!).test('text/markdown, text/html;q=0.5')).toBe(true);
    });
  });
});
