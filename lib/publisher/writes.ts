import { z } from 'zod';
import { asConsoleUser } from '../identity/console';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { ok, refused, type Result } from '../platform/kit/result';
import { violatedConstraint } from '../platform/db/errors';
import type { ApiKeyInput, AppInput, PlacementInput } from '../schemas/console';
import { MAX_ACTIVE_KEYS_PER_APP, MAX_ACTIVE_SERVER_KEYS_PER_APP, MAX_APPS_PER_PUBLISHER, type PLACEMENT_ACTIONS } from '../schemas/console';
import { generateApiKey, maskApiKey } from '../identity/keys/api-key';
import type { AdRulesInput, MinRelevanceInput } from './ad-rules';

/**
 * The console's writes. Each runs as the publisher (role `authenticated`, the user in the
 * claims) in one transaction: row-level security decides which rows it may touch, so another
 * publisher's app, placement, key or approval is simply not there ("not found"), whatever id a
 * form sends. Inputs arrive parsed by the console's zod schemas (lib/schemas/console.ts);
 * what only the database knows (a slug already taken) comes back as a message for the form.
 */

/** The row of an insert's `returning id` (a uuid, as text). */
const returnedId = z.object({ id: z.string() });

const SLUG_TAKEN = 'apps_slug_unique_per_user';
const slugTaken = (slug: string) => refused(`You already have an app with the slug “${slug}”. Choose another.`);

/** The caps the database enforces (migration 20261202000000), by the name its refusal gives. */
const TOO_MANY_APPS = 'apps_active_per_publisher';
const tooManyApps = refused(`You already have ${MAX_APPS_PER_PUBLISHER} apps, the most you can have: archive one you no longer use to make room.`);
const TOO_MANY_KEYS = 'api_keys_active_per_app';
const tooManyKeys = refused(
  `This app already has ${MAX_ACTIVE_KEYS_PER_APP} active keys, the most an app can have: revoke one you no longer use to make room.`,
);
const TOO_MANY_SERVER_KEYS = 'server_keys_active_per_app';
const tooManyServerKeys = refused(
  `This app already has ${MAX_ACTIVE_SERVER_KEYS_PER_APP} active server keys, the most an app can have: revoke one you no longer use to make room.`,
);

export async function createApp(db: Database, userId: string, input: AppInput): Promise<Result<{ id: string }>> {
  try {
    const [row] = await asConsoleUser(db, userId).query(
      sql`insert into public.apps (user_id, name, slug, description, category, allowed_origins)
          values (${userId}, ${input.name}, ${input.slug}, ${input.description}, ${input.category}::text[], ${input.allowed_origins}::text[]) returning id`,
      returnedId,
    );
    return ok({ id: row!.id });
  } catch (err) {
    const violated = violatedConstraint(err);
    if (violated === SLUG_TAKEN) return slugTaken(input.slug);
    if (violated === TOO_MANY_APPS) return tooManyApps;
    throw err;
  }
}

export async function updateApp(db: Database, userId: string, id: string, input: AppInput): Promise<Result> {
  try {
    const rows = await asConsoleUser(db, userId).query(
      sql`update public.apps set name = ${input.name}, slug = ${input.slug}, description = ${input.description},
            category = ${input.category}::text[], allowed_origins = ${input.allowed_origins}::text[]
          where id = ${id}::uuid and archived_at is null returning id`,
    );
    return rows.length === 1 ? ok(undefined) : refused('That app does not exist, or is archived.');
  } catch (err) {
    if (violatedConstraint(err) === SLUG_TAKEN) return slugTaken(input.slug);
    throw err;
  }
}

/** Archives an app: kept for its history, listed nowhere, served nothing; its keys are revoked. */
export async function archiveApp(db: Database, userId: string, id: string): Promise<Result> {
  const archived = await asConsoleUser(db, userId).transaction(async (q) => {
    const rows = await q.query(sql`update public.apps set archived_at = now() where id = ${id}::uuid and archived_at is null returning id`);
    if (rows.length === 1) {
      await q.query(sql`update public.api_keys set status = 'revoked', revoked_at = now() where app_id = ${id}::uuid and status = 'active'`);
    }
    return rows.length === 1;
  });
  return archived ? ok(undefined) : refused('That app does not exist, or is archived already.');
}

const NO_APP = 'That app does not exist, or is archived.';

/**
 * Inserts take their app from a select of the publisher's active apps (RLS hides everyone
 * else's), in the same statement: nothing is created for an app that is not theirs, or that an
 * archive running at the same moment has just taken away.
 */
export async function createPlacement(db: Database, userId: string, input: PlacementInput): Promise<Result<{ id: string }>> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`insert into public.placements (app_id, user_id, name, format)
        select a.id, ${userId}, ${input.name}, ${input.format} from public.apps a where a.id = ${input.app_id}::uuid and a.archived_at is null returning id`,
    returnedId,
  );
  return row ? ok({ id: row.id }) : refused(NO_APP);
}

/** The app's excluded topics and blocks (./ad-rules.ts): every ad request of the app follows them from the next one on. */
export async function updateAdRules(db: Database, userId: string, input: AdRulesInput): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.apps set excluded_topics = ${input.excluded_topics}::text[], blocked_advertisers = ${input.blocked_advertisers}::text[],
          blocked_categories = ${input.blocked_categories}::text[]
        where id = ${input.id}::uuid and archived_at is null returning id`,
  );
  return rows.length === 1 ? ok(undefined) : refused(NO_APP);
}

/** How relevant to the conversation an ad must be on this placement (./ad-rules.ts). */
export async function setMinRelevance(db: Database, userId: string, input: MinRelevanceInput): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.placements p set min_relevance = ${input.min_relevance}
        where p.id = ${input.id}::uuid and p.status <> 'archived'
          and exists (select 1 from public.apps a where a.id = p.app_id and a.archived_at is null)
        returning p.id`,
  );
  return rows.length === 1 ? ok(undefined) : refused('That placement does not exist, or is archived.');
}

type PlacementAction = (typeof PLACEMENT_ACTIONS)[number];

/** Each action: the status it sets, and the statuses it applies to. Archived is for good. */
const MOVES: Record<PlacementAction, { to: string; from: string[] }> = {
  pause: { to: 'paused', from: ['active'] },
  resume: { to: 'active', from: ['paused'] },
  archive: { to: 'archived', from: ['active', 'paused'] },
};

export async function changePlacement(db: Database, userId: string, id: string, action: PlacementAction): Promise<Result> {
  const move = MOVES[action];
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.placements p set status = ${move.to}
        where p.id = ${id}::uuid and p.status = any(${move.from}::text[])
          and exists (select 1 from public.apps a where a.id = p.app_id and a.archived_at is null)
        returning p.id`,
  );
  return rows.length === 1
    ? ok(undefined)
    : refused(`That placement does not exist, or cannot be ${action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'archived'} now.`);
}

/**
 * A new key: the full key is in the answer and nowhere else; the database keeps its hash. An app
 * at its cap of active keys is refused by the database, so two creations at once cannot both
 * take the last place.
 */
export async function createApiKey(
  db: Database,
  userId: string,
  input: Omit<ApiKeyInput, 'kind'> & Partial<Pick<ApiKeyInput, 'kind'>>,
): Promise<Result<{ id: string; key: string; masked_key: string }>> {
  const kind = input.kind ?? 'publishable';
  const key = generateApiKey(input.environment, kind);
  let row: z.output<typeof returnedId> | undefined;
  try {
    [row] = await asConsoleUser(db, userId).query(
      sql`insert into public.api_keys (app_id, user_id, name, kind, environment, key_prefix, key_last4, key_hash)
          select a.id, ${userId}, ${input.name}, ${kind}, ${input.environment}, ${key.prefix}, ${key.last4}, ${key.hash}
          from public.apps a where a.id = ${input.app_id}::uuid and a.archived_at is null returning id`,
      returnedId,
    );
  } catch (err) {
    if (violatedConstraint(err) === TOO_MANY_KEYS) return tooManyKeys;
    if (violatedConstraint(err) === TOO_MANY_SERVER_KEYS) return tooManyServerKeys;
    throw err;
  }
  return row ? ok({ id: row.id, key: key.key, masked_key: maskApiKey(key.prefix, key.last4) }) : refused(NO_APP);
}

export async function revokeApiKey(db: Database, userId: string, id: string): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.api_keys set status = 'revoked', revoked_at = now() where id = ${id}::uuid and status = 'active' returning id`,
  );
  return rows.length === 1 ? ok(undefined) : refused('That key does not exist, or is revoked already.');
}
