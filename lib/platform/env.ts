import { z } from 'zod';

/**
 * The one place that reads `process.env`, so every variable is validated once and documented
 * here. Everything else imports `env()`.
 * Parsed once, lazily, so a test can set variables before first use and call `resetEnv()`.
 */

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** A comma-separated list (unset or empty: none), each entry checked by `entry`. */
const commaList = (entry: z.ZodType<string, string>) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(entry));

/** A host as a `Host` header carries it: a name or address, and a port if not the default. */
const hostEntry = z
  .string()
  .regex(/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/, 'each entry must be a host, such as monetize.example or preview.monetize.example:8443');
/** A web origin: scheme, host and port only, as an `Origin` header carries it. */
const originEntry = z.string().refine((v) => {
  try {
    const url = new URL(v);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === v.toLowerCase();
  } catch {
    return false;
  }
}, 'each entry must be an origin, such as https://app.example (scheme, host and port only)');

const positiveInt = (fallback: number) => z.coerce.number().int().positive().max(1_000_000_000).default(fallback);
/** The same without a default: unset or empty is undefined. */
const optionalPositiveInt = optionalString.pipe(z.coerce.number<string | undefined>().int().positive().max(1_000_000_000).optional());
/** A positive count that may go past a billion (bytes). */
const positiveCount = (fallback: number) => z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).default(fallback);

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** Public base URL of the service (not BASE_URL: Vite, under our tests, claims that name): the OAuth issuer and the origin of every absolute URL. */
    PUBLIC_BASE_URL: z.string().url().default('http://localhost:3000'),
    /** A real PostgreSQL (Supabase's pooler URL in production). Unset: embedded PGlite. */
    DATABASE_URL: optionalString.pipe(z.string().url().optional()),
    /** Milliseconds a PostgreSQL statement may take, the wait for a connection included, before it is cancelled and the request answered as "database unavailable". */
    DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** Where the embedded database keeps its files. */
    PGLITE_DATA_DIR: z.string().default('.data/pglite'),
    /**
     * Whether a start seeds the embedded database with the demo accounts, whose password is
     * published, the first time it opens it: `true` or `false`. Unset: yes in development and
     * tests, never in production, where a deployment that wants them (the end-to-end tests, the
     * conformance run, the bench) says `true`.
     */
    SEED_DEMO: optionalString.pipe(z.enum(['true', 'false'], 'set it to true or false, or leave it unset').optional()),
    /** Requests allowed per window and client IP on the rate-limited surfaces. */
    RATE_LIMIT_MAX: positiveInt(120),
    /** Length of the rate-limit window in seconds. */
    RATE_LIMIT_WINDOW_S: positiveInt(60),
    /** Requests allowed per window with a publisher's SDK keys, all of them together (content/docs/rate-limits.md), on top of the per-address budget. */
    SDK_KEY_RATE_LIMIT_MAX: positiveInt(6000),
    /**
     * Billable impressions per hour from one network (an IPv4 /24, an IPv6 /64, whatever user
     * agents it sends) to one publisher's apps; past it, impressions are invalid (`client_limit`).
     * The allowance of a network several people share: four people's worth of 240. Unset:
     * SDK_CLIENT_IMPRESSIONS_PER_HOUR if that is set, else 960.
     */
    SDK_NETWORK_IMPRESSIONS_PER_HOUR: optionalPositiveInt,
    /** Deprecated name of SDK_NETWORK_IMPRESSIONS_PER_HOUR (it counted per network and user agent), read only when that is unset. */
    SDK_CLIENT_IMPRESSIONS_PER_HOUR: optionalPositiveInt,
    /**
     * The frequency cap's allowance for a network: one network (an IPv4 /24, an IPv6 /64, whatever
     * user agents it sends) is shown a campaign's ads at most its `frequency_cap` times this in 24
     * hours, per app. 0 turns the frequency cap off, for a load test whose requests all come from
     * one address; never in production.
     */
    SDK_NETWORK_FREQUENCY_FACTOR: z.coerce.number().int().min(0).max(1000).default(4),
    /** Billable impressions per hour of one publisher's apps, all keys together; past it, impressions are invalid (`publisher_limit`). */
    SDK_PUBLISHER_IMPRESSIONS_PER_HOUR: positiveInt(200_000),
    /** Seconds between two runs of the ad traffic roll-up in a long-running server; 0 turns it off (pg_cron runs it instead). */
    ROLLUP_INTERVAL_S: z.coerce.number().int().min(0).max(3600).default(10),
    UPSTASH_REDIS_REST_URL: optionalString.pipe(z.string().url().optional()),
    UPSTASH_REDIS_REST_TOKEN: optionalString,
    /** ES256 private key (PKCS#8 PEM or a JWK as JSON) that signs access tokens. Required in production. */
    OAUTH_SIGNING_KEY: optionalString,
    /**
     * 32 random bytes, base64url (`openssl rand -base64 32 | tr '+/' '-_' | tr -d =`): the key that
     * encrypts what the database keeps to be read back (payout details, staff TOTP secrets).
     * Required in production; development keeps one in the database (`service_secrets`).
     */
    DATA_ENCRYPTION_KEY: optionalString.pipe(
      z
        .string()
        .refine((v) => Buffer.from(v, 'base64url').length === 32, 'must be 32 bytes, base64url')
        .optional(),
    ),
    /**
     * The scheduler's secret where no process stays up (Vercel): Vercel Cron sends it as
     * `Authorization: Bearer …` on each call of `/api/cron/data-jobs` (vercel.json), which runs
     * the export job and the deletion-notice webhooks once. Unset, that path answers 404. At
     * least 32 characters (`openssl rand -hex 32`).
     */
    CRON_SECRET: optionalString.pipe(z.string().min(32).optional()),
    /** Secret for sign-in sessions and the consent page's CSRF tokens. Required in production; at least 32 characters. */
    NEXTAUTH_SECRET: optionalString.pipe(z.string().min(32).optional()),
    /**
     * Stripe Connect as a payout rail (lib/money/stripe/rail.ts): the platform's secret key and the
     * signing secret of its webhook endpoint (`/api/webhooks/stripe`, event `account.updated`).
     * Both or neither; unset, the manual rail is the only one.
     */
    STRIPE_SECRET_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'a Stripe secret key, sk_… or rk_…')
        .optional(),
    ),
    STRIPE_WEBHOOK_SECRET: optionalString.pipe(
      z
        .string()
        .regex(/^whsec_[A-Za-z0-9]+$/, 'a webhook signing secret, whsec_…')
        .optional(),
    ),
    /**
     * Where advertisers pay a manual top-up's invoice (the platform's bank account, in words: name,
     * IBAN or account and routing numbers, bank), printed on every invoice. Unset, the invoice
     * says to ask the operator; development and tests print demo details, which move no money.
     */
    TOP_UP_BANK_DETAILS: optionalString.pipe(z.string().max(500).optional()),
    GITHUB_CLIENT_ID: optionalString,
    GITHUB_CLIENT_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    /**
     * TEST ONLY. `1` lets client ID metadata documents be fetched from loopback and private
     * addresses, over plain http, so tests can serve one locally. Never set it in production:
     * it opens the server to SSRF.
     */
    OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS: z.enum(['0', '1']).default('0'),
    /** `on` (default) offers anonymous agent registration; `off` removes it. */
    AGENT_REGISTRATION: z.enum(['on', 'off']).default('on'),
    /**
     * The MCP endpoints' DNS-rebinding protection (lib/platform/http/host-origin.ts): extra names this
     * deployment answers under, besides PUBLIC_BASE_URL's host, loopback names and Vercel's own
     * (a second domain, a proxy's name). Any other `Host` is refused with 403.
     */
    MCP_ALLOWED_HOSTS: commaList(hostEntry),
    /** Web origins whose pages may call the MCP endpoints from a browser, besides this deployment's own and loopback ones. */
    MCP_ALLOWED_ORIGINS: commaList(originEntry),
    /** Set by Vercel: the deployment's own names (no scheme), which the MCP endpoints answer under. */
    VERCEL_URL: optionalString,
    VERCEL_BRANCH_URL: optionalString,
    VERCEL_PROJECT_PRODUCTION_URL: optionalString,
    /** Log level of the server log. */
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /** In-process caches to turn off, by name (lib/platform/cache/lru.ts): how `npm run bench` measures what each is worth. */
    CACHES_OFF: commaList(z.string()),
    /**
     * Quotas on consented data (content/docs/data-and-consent.md, Quotas), per UTC day: records
     * and bytes one subject may have stored in one app, and one app in all.
     */
    DATA_SUBJECT_RECORDS_PER_DAY: positiveInt(1_000),
    DATA_SUBJECT_BYTES_PER_DAY: positiveCount(10_000_000),
    DATA_APP_RECORDS_PER_DAY: positiveInt(200_000),
    DATA_APP_BYTES_PER_DAY: positiveCount(1_000_000_000),
    /** New subjects (first consents) one client address may bring to one app in an hour. */
    CONSENT_NEW_SUBJECTS_PER_ADDRESS_HOUR: positiveInt(100),
    /** New subjects (first consents) one app may take in a UTC day, from every address together. */
    CONSENT_NEW_SUBJECTS_PER_APP_DAY: positiveInt(10_000),
    /** Free samples one data buyer may view in an hour, all listings and filters together (content/docs/data-buyers.md, Samples). */
    DATA_SAMPLE_VIEWS_PER_HOUR: positiveInt(60),
    /**
     * Where uploaded files (advertisers' creatives' images and videos) are kept
     * (lib/platform/storage/): `local`, a folder on this machine (STORAGE_DIR; one instance only,
     * and not on a host whose disk is thrown away), or `s3`, a bucket of any S3-compatible store
     * (Supabase Storage in production) named by the S3_* settings below.
     */
    STORAGE_DRIVER: z.enum(['local', 's3'], 'set it to local or s3').default('local'),
    /** The local driver's folder, beside the embedded database by default. */
    STORAGE_DIR: z.string().min(1).default('.data/storage'),
    /** The S3 endpoint: Supabase's is `https://<project>.storage.supabase.co/storage/v1/s3`. Unset: AWS S3 itself. */
    S3_ENDPOINT: optionalString.pipe(z.string().url().optional()),
    /** The bucket's region (Supabase names it on its S3 settings page). */
    S3_REGION: optionalString,
    S3_BUCKET: optionalString,
    /** The S3 access key pair (Supabase: Storage settings, S3 access keys). Both or neither; neither: the AWS SDK's own credential chain. */
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    /** Addresses the bucket in the path (`<endpoint>/<bucket>/<key>`), as Supabase needs: `true` (default) or `false` (virtual-hosted buckets). */
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], 'set it to true or false').default('true'),
  })
  .superRefine((v, ctx) => {
    if ((v.STRIPE_SECRET_KEY === undefined) !== (v.STRIPE_WEBHOOK_SECRET === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['STRIPE_SECRET_KEY'], message: 'set both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or neither' });
    }
    if (v.STORAGE_DRIVER === 's3') {
      for (const name of ['S3_BUCKET', 'S3_REGION'] as const) {
        if (v[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: `STORAGE_DRIVER=s3 needs ${name}` });
      }
    }
    if ((v.S3_ACCESS_KEY_ID === undefined) !== (v.S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['S3_ACCESS_KEY_ID'], message: 'set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither' });
    }
    if ((v.UPSTASH_REDIS_REST_URL === undefined) !== (v.UPSTASH_REDIS_REST_TOKEN === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['UPSTASH_REDIS_REST_URL'],
        message: 'set both UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or neither',
      });
    }
  })
  // The hourly cap per network, under its deprecated name when only that is set.
  .transform(({ SDK_CLIENT_IMPRESSIONS_PER_HOUR, ...v }) => ({
    ...v,
    SDK_NETWORK_IMPRESSIONS_PER_HOUR: v.SDK_NETWORK_IMPRESSIONS_PER_HOUR ?? SDK_CLIENT_IMPRESSIONS_PER_HOUR ?? 960,
  }));

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const parsed = result.data;
  return { ...parsed, PUBLIC_BASE_URL: parsed.PUBLIC_BASE_URL.replace(/\/+$/, '') };
}

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** For tests that change `process.env` between cases. */
export function resetEnv(): void {
  cached = undefined;
}
