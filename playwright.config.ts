import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { defineConfig } from '@playwright/test';
import { chromiumPath } from './scripts/chromium.mjs';

/**
 * End-to-end tests in a real Chromium (Debian's; Playwright cannot download browsers here)
 * against the production build served by scripts/serve.mjs, the way `npm start` serves it.
 * Two servers: the main one, and one whose rate-limit budget a test may spend.
 */

const PORT = 3210;
const LIMITED_PORT = 3211;
// Production refuses OAuth without a signing key and a session secret (503): give it both,
// fresh for each run, as a deployment's configuration would.
const oauthConfig = {
  OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
};
const common = {
  NODE_ENV: 'production',
  // The suite signs in as the demo publishers: production seeds them only when asked.
  SEED_DEMO: 'true',
  ...oauthConfig,
  NEXT_DIST_DIR: '.next-test',
  NEXT_TELEMETRY_DISABLED: '1',
  LOG_LEVEL: 'warn',
};

function server(port: number, extra: Record<string, string>) {
  return {
    command: 'node scripts/serve.mjs',
    url: `http://localhost:${port}/api/v1/pricing`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe' as const,
    stderr: 'pipe' as const,
    env: { ...common, PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}`, ...extra },
  };
}

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromiumPath() ?? undefined,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    // Generous budget: the suite's own requests must not trip the limiter. Nor the frequency cap,
    // which counts by network: every visit to /demo in the suite comes from 127.0.0.1, about 60
    // fills of the demo app's few campaigns, against 4 x their cap of 10 at the default allowance.
    server(PORT, {
      PGLITE_DATA_DIR: '.data/e2e',
      RATE_LIMIT_MAX: '100000',
      OAUTH_REGISTRATIONS_PER_HOUR: '100000',
      SDK_NETWORK_FREQUENCY_FACTOR: '100',
    }),
    // The default budget (120 per 60 s), spent on purpose by rate-limit.spec.ts.
    server(LIMITED_PORT, { PGLITE_DATA_DIR: '.data/e2e-limited' }),
  ],
});

export const LIMITED_BASE_URL = `http://localhost:${LIMITED_PORT}`;
