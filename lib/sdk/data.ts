import { z } from 'zod';
import type { Engine } from '../db/database';
import { ApiError } from '../http/errors';
import { PURPOSE_OF_KIND, type consentBody, type consentRequest, type DataRequest, type dataBody, type withdrawalBody } from '../schemas/sdk';
import { queryAsApp, rowsOf, sqlJson, sqlText, sqlTextArray } from './access';
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

const CONSENT_COLUMNS = 'subject_hash, purposes, policy_version, consented_at, recorded_at';

function asApp(app: AppPrincipal, database: () => Promise<Engine>, statements: string) {
  return queryAsApp(database, app, statements);
}

/** Records the subject's consent, replacing the current one; unsold data of purposes it no longer covers is deleted. */
export async function recordConsent(
  app: AppPrincipal,
  request: z.output<typeof consentRequest>,
  now: number,
  database: () => Promise<Engine>,
): Promise<ConsentBody> {
  const subject = sqlText(request.subject_id);
  const purposes = sqlTextArray([...new Set(request.purposes)].sort());
  const consentedAt = sqlText(new Date(request.consented_at ?? now).toISOString());
  const kinds = Object.entries(PURPOSE_OF_KIND)
    .filter(([, purpose]) => !request.purposes.includes(purpose))
    .map(([kind]) => kind);
  const results = await asApp(
    app,
    database,
    `insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
     values (public.sdk_app_id(), public.sdk_user_id(), ${subject}, ${purposes}, ${sqlText(request.policy_version)}, ${consentedAt}::timestamptz)
     on conflict (app_id, subject_hash) where withdrawn_at is null
     do update set purposes = excluded.purposes, policy_version = excluded.policy_version,
                   consented_at = excluded.consented_at, recorded_at = now()
     returning ${CONSENT_COLUMNS};
     delete from public.data_records where subject_hash = ${subject} and status = 'unsold' and kind = any(${sqlTextArray(kinds)})`,
  );
  return consentOf(rowsOf(results, 0)[0]);
}

/** The subject's current consent; throws the 404 of none. */
export async function currentConsent(app: AppPrincipal, subjectId: string, database: () => Promise<Engine>): Promise<ConsentBody> {
  const results = await asApp(
    app,
    database,
    `select ${CONSENT_COLUMNS} from public.data_consents where subject_hash = ${sqlText(subjectId)} and withdrawn_at is null`,
  );
  const row = rowsOf(results, 0)[0];
  if (!row) throw new ApiError('not_found', 'This subject has no current consent with this app.');
  return consentOf(row);
}

/** Withdraws the subject's consent and deletes their unsold data. Two statements: the delete sees what a racing submission stored. */
export async function withdrawConsent(app: AppPrincipal, subjectId: string, database: () => Promise<Engine>): Promise<z.output<typeof withdrawalBody>> {
  const subject = sqlText(subjectId);
  const results = await asApp(
    app,
    database,
    `update public.data_consents set withdrawn_at = now() where subject_hash = ${subject} and withdrawn_at is null returning 1;
     delete from public.data_records where subject_hash = ${subject} and status = 'unsold' returning 1`,
  );
  return { subject_id: subjectId, withdrawn: rowsOf(results, 0).length > 0, deleted_records: rowsOf(results, 1).length };
}

const stored = z.object({ consented: z.number(), stored: z.number() });

/** Stores the records; throws the 403 of a subject without a current consent covering the kind. */
export async function submitData(app: AppPrincipal, request: DataRequest, database: () => Promise<Engine>): Promise<z.output<typeof dataBody>> {
  const purpose = PURPOSE_OF_KIND[request.kind];
  const records = request.records.map((r) => ({ id: r.id, data: r.data }));
  const results = await asApp(
    app,
    database,
    `with consent as (
       select id from public.data_consents
       where subject_hash = ${sqlText(request.subject_id)} and withdrawn_at is null and ${sqlText(purpose)} = any(purposes)
       for share
     ), saved as (
       insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes)
       select public.sdk_app_id(), public.sdk_user_id(), consent.id, ${sqlText(request.subject_id)}, ${sqlText(request.kind)}, r.id, r.data,
              octet_length(r.data::text)
       from consent, jsonb_to_recordset(${sqlJson(records)}) as r(id text, data jsonb)
       on conflict (app_id, kind, record_id) do nothing
       returning 1
     )
     select (select count(*) from consent)::int as consented, (select count(*) from saved)::int as stored`,
  );
  const outcome = stored.parse(rowsOf(results, 0)[0]);
  if (outcome.consented === 0) {
    throw new ApiError('forbidden', `This subject has no current consent covering ${purpose}: record one with POST /functions/v1/consents first.`);
  }
  return { received: records.length, stored: outcome.stored, duplicates: records.length - outcome.stored };
}
