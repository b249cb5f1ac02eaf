import nextCoreWebVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    // Account reads run as the user (RLS); the service module must stay out of their reach.
    files: ['lib/account/**', 'app/api/v1/me/**', 'lib/mcp/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/db/service', '@/lib/db/service'], message: 'Account reads run as the user: use asUser from lib/db/database.' }] },
      ],
    },
  },
  {
    // The SDK key lookup runs as `anon` (public.sdk_key): knowing the key is the authorization.
    files: ['lib/sdk/keys.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/db/service', '@/lib/db/service'], message: 'The key lookup runs as anon: use asAnonymous and public.sdk_key.' }] },
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
