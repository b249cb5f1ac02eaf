import nextCoreWebVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';

/**
 * The service role bypasses row-level security. These files, and only these, may run statements
 * as it (`asService` from lib/platform/db/roles.ts); everything a user or an app asks for runs as them.
 * Adding a file here is a decision to review: say in the commit why it cannot run as a user,
 * an app or `anon`.
 */
export const SERVICE_ROLE_ALLOWLIST = [
  'lib/agents/a2a/task-store.ts', // A2A tasks belong to no account: every caller is anonymous
  'lib/identity/auth/users.ts', // sign-in and sign-up run before anyone is known
  'lib/platform/db/service-secrets.ts', // the service's own keys
  'lib/demo/page.ts', // the demo page reads its own publishable key
  'lib/demo/seed.ts', // the demo accounts, written before they exist
  'lib/routes/idempotency.ts', // idempotency records of callers without an account
  'lib/identity/oauth/clients.ts', // client registration, before any user approved the client
  'lib/identity/oauth/codes.ts', // authorization codes, redeemed by a client that is no user
  'lib/money/ledger-check.ts', // the reconciliation reads every account's money
  'lib/ads/serving/rollup.ts', // the roll-up adds every app's traffic to its totals
  'lib/money/stripe/rail.ts', // Stripe's webhooks come from no user; a method's Stripe account is the service's to write
  'lib/money/stripe/checkout.ts', // a Checkout session's top-up is the service's to record (its webhook may come first); advertisers never write top-ups
  'lib/data/buyers/export-job.ts', // the export job writes every buyer's files from every publisher's records; no user runs it
  'lib/data/buyers/webhooks.ts', // the delivery worker sends every buyer's deletion notices with their sealed secrets; no user runs it
  'lib/ads/advertisers/files.ts', // the sweep deletes every advertiser's files no creative names; no user runs it
  'lib/ads/serving/market.ts', // the market is every running campaign's hints and every app's excluded topics, read once for all apps
  'lib/identity/roles.ts', // which roles the signed-in account holds: four booleans of its own rows, staff_members among them, which no user's session may read
  'lib/ads/conversions/record.ts', // a conversion comes from an advertiser's server or page, known by its key's hash or its public tag id, never a session; public.conversion_record checks the rest
];

/**
 * Ways around the one entry to the database (lib/platform/db/roles.ts) that no module above lib/platform/db may
 * take: the engine itself (SQL text and parameters), opening a database (the composition root,
 * lib/services.ts, does), making a statement other than with the `sql` tag.
 */
const outsideDb = ['lib/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}', 'proxy.ts', 'instrumentation.ts'];
const testFiles = ['**/*.test.ts', '**/*.test.tsx'];

/** Statements made only with the `sql` tag (no-restricted-syntax selectors, for every file above lib/platform/db). */
const STATEMENT_SYNTAX = [
  {
    selector: "CallExpression[callee.name='sql']",
    message: 'sql is a template tag: write sql`…` so that every ${value} is bound or quoted, never pasted.',
  },
  {
    selector: "NewExpression[callee.name='Sql']",
    message: 'A statement is made with the sql tag, never by hand.',
  },
];

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    files: outsideDb,
    ignores: ['lib/platform/db/**', ...testFiles],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/engine', '@/lib/platform/db/engine'],
              message: 'Only lib/platform/db holds the engine: run statements with as(db, role, claims) from lib/platform/db/roles and the sql tag.',
            },
            {
              group: ['**/db/roles', '@/lib/platform/db/roles'],
              importNames: ['asService'],
              message:
                'The service role bypasses row-level security: run as the user, the app or anon (as() in lib/platform/db/roles), or add the file to SERVICE_ROLE_ALLOWLIST in eslint.config.mjs with the reason.',
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ...STATEMENT_SYNTAX],
    },
  },
  {
    // Rows are checked by the schema that types them (issue 40): a type argument on query() would
    // be a type the rows were never checked against. no-restricted-syntax's options replace those
    // of the block above for these files, so the statements' selectors are listed again.
    files: ['lib/**/*.ts'],
    ignores: ['lib/platform/db/**', ...testFiles],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...STATEMENT_SYNTAX,
        {
          // `typeArguments` in @typescript-eslint 8 (`typeParameters` before it).
          selector: "CallExpression[callee.property.name='query'][typeArguments]",
          message: "Check a row with its schema: query(statement, row) (lib/platform/db/roles.ts); the schema is the row's type",
        },
      ],
    },
  },
  {
    // The allowlist: the same rules, less the service role's.
    files: SERVICE_ROLE_ALLOWLIST,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/engine', '@/lib/platform/db/engine'],
              message: 'Only lib/platform/db holds the engine: run statements with asService(db) and the sql tag.',
            },
          ],
        },
      ],
    },
  },
  {
    ignores: [
      'node_modules/**',
      '.next/**',
      '.next-*/**',
      '.scratch/**',
      '.data/**',
      'bench/baseline/.next/**',
      'bench-results/**',
      'test-results/**',
      'playwright-report/**',
      'next-env.d.ts',
      'packages/*/dist/**',
      'public/sdk/**',
    ],
  },
];

export default config;
