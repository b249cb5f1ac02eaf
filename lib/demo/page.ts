import { z } from 'zod';
import type { Database } from '../platform/db/roles';
import { isDatabaseError } from '../platform/db/errors';
import { asService } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { describeError, log } from '../platform/log';
import { hashApiKey } from '../identity/keys/api-key';
import { KEY_STATUSES } from '../schemas/account';
import { unseal } from '../platform/crypto';
import { dataEncryptionKey } from '../platform/db/service-secrets';

/**
 * The demo page (`/demo`): a small AI-chat app of the demo publisher (Quizly, in the seed) that
 * shows ads through the browser SDK with a key of its own, so that a fresh install serves and
 * counts ads the moment it runs. The key is publishable, as every key a web page uses: the page
 * puts it in its source. The seed keeps it in `service_secrets` and lists the service's own
 * origin among the app's allowed origins.
 */

/** The `service_secrets` entry holding the demo page's publishable key. */
export const DEMO_PAGE_KEY_SECRET = 'demo_page_key';
/**
 * The `service_secrets` entry holding the demo app's server key, with which the demo chat's
 * server route asks for ads (./chat.ts). A secret: kept sealed with the data encryption key,
 * under this purpose.
 */
export const DEMO_SERVER_KEY_SECRET = 'demo_server_key';
export const DEMO_SERVER_KEY_PURPOSE = 'demo server key';

/** The formats the page shows, one placement each. */
const DEMO_FORMATS = ['inline_text', 'sponsored_card', 'floating_video'] as const;
export type DemoFormat = (typeof DEMO_FORMATS)[number];

export interface DemoSetup {
  key: string;
  appName: string;
  /** An active placement of the app for each format the page shows. */
  placements: Record<DemoFormat, string>;
  /**
   * The app's sponsored follow-up placement, which the chat's server asks for beside the inline
   * ad; null on a database seeded before the format existed (the chat shows none).
   */
  followUp: string | null;
}

/** The demo's key and placements, or why the page cannot show ads (and what to do). */
export async function demoSetup(database: () => Promise<Database>): Promise<DemoSetup | { problem: string }> {
  try {
    return await readSetup(await database());
  } catch (err) {
    if (!isDatabaseError(err)) throw err;
    log.error('demo setup failed', describeError(err));
    return { problem: 'the database cannot be reached right now; reload the page in a moment.' };
  }
}

/**
 * What the demo chat's server route asks for ads with: the demo app's server key, its inline
 * placement and its follow-up placement (when it has one); null (the chat answers without ads) on
 * a database seeded before the server key existed, or once that key or the page's setup stopped
 * working.
 */
export async function demoServer(database: () => Promise<Database>): Promise<{ key: string; placement: string; followUp: string | null } | null> {
  const setup = await demoSetup(database);
  if ('problem' in setup) return null;
  const db = await database();
  const [secret] = await asService(db).query(
    sql`select value from public.service_secrets where name = ${DEMO_SERVER_KEY_SECRET}`,
    z.object({ value: z.string() }),
  );
  if (!secret) return null;
  try {
    return {
      key: unseal(await dataEncryptionKey(db), secret.value, DEMO_SERVER_KEY_PURPOSE),
      placement: setup.placements.inline_text,
      followUp: setup.followUp,
    };
  } catch (err) {
    // Sealed under another data encryption key than this deployment's: no ads, and the log says why.
    log.error('demo server key cannot be unsealed', describeError(err));
    return null;
  }
}

async function readSetup(db: Database): Promise<DemoSetup | { problem: string }> {
  return asService(db).transaction(async (q) => {
    const [secret] = await q.query(sql`select value from public.service_secrets where name = ${DEMO_PAGE_KEY_SECRET}`, z.object({ value: z.string() }));
    if (!secret) return { problem: "This database was seeded before the demo page existed: `npm run db:reset` seeds it again, with the demo page's key." };
    const [key] = await q.query(
      sql`select k.status, a.id as app_id, a.name, a.archived_at is not null as archived
          from public.api_keys k join public.apps a on a.id = k.app_id where k.key_hash = ${hashApiKey(secret.value)}`,
      z.object({ status: z.enum(KEY_STATUSES), app_id: z.string(), name: z.string(), archived: z.boolean() }),
    );
    if (!key || key.status !== 'active' || key.archived) {
      return { problem: "The demo page's key was revoked, or its app archived, in the console: `npm run db:reset` seeds the demo again." };
    }
    const rows = await q.query(
      sql`select distinct on (format) id, format from public.placements
          where app_id = ${key.app_id} and status = 'active' and format in ('inline_text', 'sponsored_card', 'floating_video', 'sponsored_follow_up')
          order by format, created_at`,
      z.object({ id: z.string(), format: z.enum([...DEMO_FORMATS, 'sponsored_follow_up']) }),
    );
    const found = Object.fromEntries(rows.map((r) => [r.format, r.id]));
    const { sponsored_follow_up: followUp = null, ...placements } = found as Partial<Record<DemoFormat | 'sponsored_follow_up', string>>;
    if (!placements.inline_text || !placements.sponsored_card || !placements.floating_video) {
      return {
        problem: `${key.name} needs an active placement of each format the page shows (inline text, sponsored card, floating video): activate them in the console.`,
      };
    }
    return { key: secret.value, appName: key.name, placements: placements as Record<DemoFormat, string>, followUp };
  });
}
