import { z } from 'zod';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { ApiError } from '../platform/http/errors';
import { PURPOSE_OF_KIND, type consentBody, type consentRequest, type DataRequest, type dataBody, type withdrawalBody } from '../schemas/sdk';
import { asApp } from './access';
import type { AppPrincipal } from './keys';

/**
 * Consented data (content/docs/data-and-consent.md). An app records what its user agreed to
 * (`POST /functions/v1/consents`), may withdraw it (`DELETE`), and sends data only for a subject
 * whose current consent covers the data's purpose (`POST /functions/v1/data`). A subject is the
 * SHA-256 of the app's own user id: we never learn who it is, and nothing here is logged.
 *
 * Withdrawing, or narrowing the purposes, deletes the subject's unsold records at once (sold ones
 * are licensed and stay with their buyer). A submission holds the consent row `for share` while it
 * stores, so a withdrawal racing it waits, then deletes what it stored.
 */

type ConsentBody = z.output<typeof consentBody>;

const consentRow = z.object({
  subject_hash: z.string(),
  purposes: z.array(z.enum(['ai_interactions', 'ux_sessions'])),
  policy_version: z.string(),
  consented_at: z.date(),
  recorded_at: z.date(),
});

function consentOf(row: unknown): ConsentBody {
  const c = consentRow.parse(row);
  return {
    subject_id: c.subject_hash,
    purposes: c.purposes,
    policy_version: c.policy_version,
    consented_at: c.consented_at.toISOString(),
    recorded_at: c.recorded_at.toISOString(),
  };
}

const CONSENT_COLUMNS = sql`subject_hash, purposes, policy_version, consented_at, recorded_at`;

/** Records the subject's consent, replacing the current one; unsold data of purposes it no longer covers is deleted. */
export async function recordConsent(
  app: AppPrincipal,
  request: z.output<typeof consentRequest>,
  now: number,
  database: () => Promise<Database>,
): Promise<ConsentBody> {
  const subject = request.subject_id;
  const purposes = [...new Set(request.purposes)].sort();
  const consentedAt = new Date(request.consented_at ?? now);
  const kinds = Object.entries(PURPOSE_OF_KIND)
    .filter(([, purpose]) => !request.purposes.includes(purpose))
    .map(([kind]) => kind);
  const [consents] = await asApp(await database(), app).script(
    sql`insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
        values (public.sdk_app_id(), public.sdk_user_id(), ${subject}, ${purposes}::text[], ${request.policy_version}, ${consentedAt}::timestamptz)
        on conflict (app_id, subject_hash) where withdrawn_at is null
        do update set purposes = excluded.purposes, policy_version = excluded.policy_version,
                      consented_at = excluded.consented_at, recorded_at = now()
        returning ${CONSENT_COLUMNS}`,
    sql`delete from public.data_records where subject_hash = ${subject} and status = 'unsold' and kind = any(${kinds}::text[]) returning 1`,
  );
  return consentOf(consents?.[0]);
}

/** The subject's current consent; throws the 404 of none. */
export async function currentConsent(app: AppPrincipal, subjectId: string, database: () => Promise<Database>): Promise<ConsentBody> {
  const [row] = await asApp(await database(), app).query(
    sql`select ${CONSENT_COLUMNS} from public.data_consents where subject_hash = ${subjectId} and withdrawn_at is null`,
  );
  if (!row) throw new ApiError('not_found', 'This subject has no current consent with this app.');
  return consentOf(row);
}

/** Withdraws the subject's consent and deletes their unsold data. Two statements: the delete sees what a racing submission stored. */
export async function withdrawConsent(app: AppPrincipal, subjectId: string, database: () => Promise<Database>): Promise<z.output<typeof withdrawalBody>> {
  const [withdrawn, deleted] = await asApp(await database(), app).script(
    sql`update public.data_consents set withdrawn_at = now() where subject_hash = ${subjectId} and withdrawn_at is null returning 1`,
    sql`delete from public.data_records where subject_hash = ${subjectId} and status = 'unsold' returning 1`,
  );
  return { subject_id: subjectId, withdrawn: (withdrawn ?? []).length > 0, deleted_records: (deleted ?? []).length };
}

const stored = z.object({ consented: z.number(), stored: z.number() });

/** Stores the records; throws the 403 of a subject without a current consent covering the kind. */
export async function submitData(app: AppPrincipal, request: DataRequest, database: () => Promise<Database>): Promise<z.output<typeof dataBody>> {
  const purpose = PURPOSE_OF_KIND[request.kind];
  const records = request.records.map((r) => ({ id: r.id, data: r.data }));
  const [counts] = await asApp(await database(), app).query(
    sql`with consent as (
          select id from public.data_consents
          where subject_hash = ${request.subject_id} and withdrawn_at is null and ${purpose} = any(purposes)
          for share
        ), saved as (
          insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes)
          select public.sdk_app_id(), public.sdk_user_id(), consent.id, ${request.subject_id}, ${request.kind}, r.id, r.data,
                 octet_length(r.data::text)
          from consent, jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(id text, data jsonb)
          on conflict (app_id, kind, record_id) do nothing
          returning 1
        )
        select (select count(*) from consent)::int as consented, (select count(*) from saved)::int as stored`,
  );
  const outcome = stored.parse(counts);
  if (outcome.consented === 0) {
    throw new ApiError('forbidden', `This subject has no current consent covering ${purpose}: record one with POST /functions/v1/consents first.`);
  }
  return { received: records.length, stored: outcome.stored, duplicates: records.length - outcome.stored };
}
