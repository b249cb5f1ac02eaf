import { z } from 'zod';
import { KEY_ENVIRONMENTS, KEY_KINDS, PLACEMENT_FORMATS } from './account';

/**
 * What a publisher writes in the console: apps, placements and API keys. Each field's rule is
 * the database's (its CHECK constraints), said in words a form can show. Form fields arrive as
 * text: lists are written one per line or separated by commas.
 */

/** Lowercase letters and digits in words joined by single hyphens (the apps table's CHECK). */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_CATEGORIES = 10;
export const MAX_ORIGINS = 20;
/**
 * What a publisher may have active at once, enforced by the database (triggers of migration
 * 20261202000000, which hold the same numbers) and published in the docs: 50 apps not archived,
 * 20 active keys per app, so at most 1,000 active keys. Enough for an app per product and
 * environment and a key per build or client with room to rotate each (a rotation needs two at
 * once), and few enough that what one publisher can create stays small.
 */
export const MAX_APPS_PER_PUBLISHER = 50;
export const MAX_ACTIVE_KEYS_PER_APP = 20;
/** Active server keys per app (supabase/schemas/functions/public.api_keys_within_limit.sql): a server needs one, rotation a second. */
export const MAX_ACTIVE_SERVER_KEYS_PER_APP = 5;

/** Text from a form: comma- or newline-separated items, trimmed, empty ones dropped. */
const listOf = (item: z.ZodType<string>, max: number, what: string) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(/[\n,]/)
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).max(max, `List at most ${max} ${what}.`),
  );

/**
 * A web origin: scheme, host and port only (`https://app.example.com`), as a browser sends it in
 * `Origin`. http only for loopback hosts, so a key is never tied to a page that anyone on the
 * path can rewrite.
 */
export const webOrigin = z.string().refine((value) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.origin !== value.replace(/\/$/, '')) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}, 'Each origin is a scheme and host, like https://app.example.com (http only for localhost).');

const name = (what: string) => z.string().trim().min(1, `Enter a name for the ${what}.`).max(100, `The ${what}'s name is too long (100 characters at most).`);

export const appInput = z.object({
  name: name('app'),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Enter a slug.')
    .max(60, 'The slug is too long (60 characters at most).')
    .regex(SLUG_PATTERN, 'Use lowercase letters and digits, words joined by single hyphens (like my-app).'),
  description: z.string().trim().max(500, 'The description is too long (500 characters at most).').default(''),
  category: listOf(z.string().toLowerCase().max(30, 'Each category is 30 characters at most.'), MAX_CATEGORIES, 'categories'),
  allowed_origins: listOf(
    webOrigin.transform((o) => o.replace(/\/$/, '')),
    MAX_ORIGINS,
    'origins',
  ),
});
export type AppInput = z.output<typeof appInput>;

const id = (what: string) => z.string().uuid(`Unknown ${what}.`);

export const placementInput = z.object({
  app_id: id('app'),
  name: name('placement'),
  format: z.enum(PLACEMENT_FORMATS, `Choose one of the formats: ${PLACEMENT_FORMATS.join(', ')}.`),
});
export type PlacementInput = z.output<typeof placementInput>;

/** What a publisher may do to a placement: pause and resume it, or archive it for good. */
export const PLACEMENT_ACTIONS = ['pause', 'resume', 'archive'] as const;
export const placementAction = z.object({ id: id('placement'), action: z.enum(PLACEMENT_ACTIONS, 'Unknown action.') });

export const apiKeyInput = z.object({
  app_id: id('app'),
  name: name('key'),
  environment: z.enum(KEY_ENVIRONMENTS, `Choose an environment: ${KEY_ENVIRONMENTS.join(' or ')}.`),
  kind: z.enum(KEY_KINDS, 'Choose publishable or server.').default('publishable'),
});
export type ApiKeyInput = z.output<typeof apiKeyInput>;

export const apiKeyRevocation = z.object({ id: id('key') });
export const appArchival = z.object({ id: id('app') });
export const payoutCancellation = z.object({ id: id('payout') });
/** The publisher's withdrawal of one user's consent: the app, and the user as the app names them to the SDK (or that id's SHA-256). */
export const consentWithdrawal = z.object({
  app_id: id('app'),
  user: z.string().trim().min(1, "Enter the user's id, as your app passes it to the SDK.").max(500, 'A user id is at most 500 characters.'),
});

/** An approval as the console lists it. */
export const approvalRow = z.object({
  client_id: z.string(),
  client_name: z.string(),
  scopes: z.array(z.string()),
  approved_at: z.date(),
});
export type ApprovalRow = z.output<typeof approvalRow>;
export const approvalWithdrawal = z.object({ client_id: z.string().min(1, 'Unknown client.').max(2048, 'Unknown client.') });
