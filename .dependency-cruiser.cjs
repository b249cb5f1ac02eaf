/**
 * The wings of the service and the rules that keep them (ARCHITECTURE.md opens with the picture).
 * Imports run one way, down the list; wings on the same row are siblings and never import each
 * other:
 *
 *   app/, proxy.ts, instrumentation.ts   Next's files: thin, they call the root and the wings
 *   root       lib/routes/, lib/services.ts, lib/process.ts, lib/demo/: the kernel, every
 *              surface's handlers, the process's services and what it holds once, the demo
 *              accounts
 *   surfaces   lib/agents/ (MCP, A2A) · lib/ops/ (the operator) · lib/publisher/ (the
 *              publisher's console)
 *   domains    lib/docs/ (pages, search, /ask, OpenAPI) · lib/account/ (the account API's
 *              reads) · lib/ads/ (advertisers and ad serving) · lib/data/ (consented records
 *              and their buyers)
 *   money      lib/money/: the ledger's check, funds and top-ups, Stripe, payouts, pricing, figures
 *   identity   lib/identity/: users and sessions, OAuth, agents' identity, SDK keys, secrets
 *   contracts  lib/schemas/: zod schemas and the route declarations (the registry)
 *   platform   lib/platform/: env, log, db, http kernel, cache, crypto, and the kit (forms,
 *              results, formatting, CSV, charts, typed numbers, the forms' rate limit)
 *
 * A module may import its own wing and the rows below, never a sibling or a row above (its tests
 * may import anything). No import circle is allowed between modules, nor between folders: the
 * second pass of `npm run lint:deps` (.dependency-cruiser-folders.cjs) collapses the tree to its
 * folders and finds none. tests/architecture/boundaries.test.ts shows each rule failing on a
 * deliberate breach.
 */

/** The rows, top first; each wing is a path under lib/ (a folder with its slash, or a file). */
const ROWS = [
  ['routes/', 'services.ts', 'process.ts', 'demo/'],
  ['agents/', 'ops/', 'publisher/'],
  ['docs/', 'account/', 'ads/', 'data/'],
  ['money/'],
  ['identity/'],
  ['schemas/'],
  ['platform/'],
];
/** The root is one wing of three parts: they may import each other. */
const ROOT = ROWS[0];

const APP = '^(app/|proxy\\.ts|instrumentation\\.ts)';
/** A module's tests may wire it to anything (test services, the root's kernel); circles still count. */
const TESTS = '\\.test\\.tsx?$';

const wingPath = (wing) => `^lib/${wing.replace('.', '\\.')}`;
const anyOf = (wings) => wings.map(wingPath).join('|');
const name = (wing) => wing.replace(/\/$/, '').replace('.ts', '');

/** For each wing below the root: it may not import a row above it, nor a sibling. */
const wingRules = ROWS.flatMap((row, i) => {
  if (i === 0) return [];
  const above = ROWS.slice(0, i).flat();
  return row.map((wing) => {
    const siblings = row.filter((w) => w !== wing);
    return {
      name: `${name(wing)}-imports-down-only`,
      severity: 'error',
      comment:
        `lib/${wing} may import its own wing and the rows below (${
          ROWS.slice(i + 1)
            .flat()
            .map(name)
            .join(', ') || 'nothing'
        }), ` +
        `never a row above${siblings.length ? ` nor its siblings (${siblings.map(name).join(', ')})` : ''}: ` +
        'move what both need down, or pass it in from the root.',
      from: { path: wingPath(wing), pathNot: TESTS },
      to: { path: [anyOf([...above, ...siblings]), APP].join('|') },
    };
  });
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: two modules that need each other are one module, or need a third that both import.',
      from: {},
      to: { circular: true },
    },
    ...wingRules,
    {
      name: 'root-below-app',
      severity: 'error',
      comment: 'lib/ never imports app/.',
      from: { path: anyOf(ROOT), pathNot: TESTS },
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
