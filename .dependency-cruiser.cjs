/**
 * The layers of the service and the rule that keeps them (ARCHITECTURE.md, Layers). Imports run
 * one way, down:
 *
 *   app/                   Next's route files and pages: thin, they call the composition root
 *   lib/routes/, services  the composition root: the kernel with its credential checks, the
 *                          handlers of each surface, the process's services
 *   lib/<domain>/          what the service does: account, sdk, oauth, console, … (one folder each)
 *   lib/schemas/           the contracts: zod schemas and the route declarations (the registry)
 *   lib/platform/          what any service would need: env, log, db, http kernel, cache, crypto
 *
 * A module may import its own layer and the layers below, never one above (its tests may import
 * anything), and no import circle is allowed anywhere. `npm run lint:deps` checks it (CI runs it through npm run check), and
 * tests/architecture/boundaries.test.ts shows it failing on a deliberate circle and upward import.
 */
const PLATFORM = '^lib/platform/';
const CONTRACTS = '^lib/schemas/';
const ROOT = '^lib/(routes/|services\\.ts)';
const APP = '^(app/|proxy\\.ts|instrumentation\\.ts)';
/** A module's tests may wire it to anything (test services, the root's kernel); circles still count. */
const TESTS = '\\.test\\.tsx?$';
const DOMAINS = '^lib/(?!platform/|schemas/|routes/|services\\.ts)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that need each other are one module, or need a third that both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-is-the-bottom',
      severity: 'error',
      comment: 'The platform layer (env, log, db, http, …) knows no contract, domain or route: pass what it needs in.',
      from: { path: PLATFORM, pathNot: TESTS },
      to: { path: `${CONTRACTS}|${DOMAINS}|${ROOT}|${APP}` },
    },
    {
      name: 'contracts-above-platform-only',
      severity: 'error',
      comment: 'Schemas and route declarations describe; they import only the platform.',
      from: { path: CONTRACTS, pathNot: TESTS },
      to: { path: `${DOMAINS}|${ROOT}|${APP}` },
    },
    {
      name: 'domains-below-the-root',
      severity: 'error',
      comment: 'A domain never imports the composition root (routes, services) or app/: declare the narrow interface it needs instead.',
      from: { path: DOMAINS, pathNot: TESTS },
      to: { path: `${ROOT}|${APP}` },
    },
    {
      name: 'root-below-app',
      severity: 'error',
      comment: 'lib/ never imports app/.',
      from: { path: ROOT, pathNot: TESTS },
      to: { path: APP },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|\\.next[^/]*|\\.data|bench/baseline)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
