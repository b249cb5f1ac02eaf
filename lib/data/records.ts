import { z } from 'zod';
import { sameText } from '../platform/crypto';
import type { Database, Statements } from '../platform/db/roles';
import { sql, type Sql } from '../platform/db/sql';
import { env } from '../platform/env';
import { ApiError } from '../platform/http/errors';
import {
  CONSENT_CLOCK_SKEW_MINUTES,
  CONSENT_MAX_AGE_DAYS,
  DATA_PURPOSES,
  PURPOSE_OF_KIND,
  type consentBody,
  type consentRequest,
  type DataRequest,
  type dataBody,
  type recordedConsentBody,
  type withdrawalBody,
} from '../schemas/sdk';
import { asApp } from '../identity/keys/access';
import type { AppPrincipal } from '../identity/keys/directory';
import { arrivalAddress, newConsentProof, proofHash, storedSubjectId, subjectKeys, subjectLock, type SubjectKeys } from './subjects';

/**
 * Consented data (content/docs/data-and-consent.md). An app records what its user agreed to
 * (`POST /functions/v1/consents`), may withdraw it (`DELETE`), and sends data only for a subject
 * whose current consent covers the data's purpose (`POST /functions/v1/data`). A subject is the
 * SHA-256 of the app's own user id, which the tables keep only keyed per app, and its consent is
 * its owner's: the first consent answers a consent proof, and everything after needs it
 * (lib/data/subjects.ts). Nothing here is logged.
 *
 * Without the proof, or with a wrong one, a request gets the answer of a subject that never
 * consented (404 for a read, 403 for a withdrawal or data), so the publishable key alone tells no
 * one whether a user consented. A new consent for a subject that exists needs its proof too;
 * only a subject's first consent needs none (that is how a page asks), and those are bounded per
 * client address.
 *
 * The history is append-only: a consent, a change of it and a withdrawal are each a new row; the
 * current consent is the subject's latest row when that row is not a withdrawal. Withdrawing, or
 * narrowing the purposes, deletes the subject's records of them at once, sold or not, and each
 * data buyer that licensed any of them gets a deletion notice (public.data_records_erase). A subject's changes take its advisory lock alone and submissions take it
 * shared (`subjectLock`), so a withdrawal waits for the submissions under way, then deletes what
 * they stored.
 */

export interface DataServices {
  database(): Promise<Database>;
  now(): number;
  /** The root of the keys that key subject ids and hash addresses. */
  sdkSecret(): Promise<Buffer>;
}

/** Who asks: the proof the request presents (lib/data/subjects.ts, `presentedProof`), and its client's address. */
export interface Asker {
  proof: string | null;
  clientIp: string;
}

type ConsentBody = z.output<typeof consentBody>;

const consentRow = z.object({
  purposes: z.array(z.enum(DATA_PURPOSES)),
  policy_version: z.string(),
  consented_at: z.date(),
  recorded_at: z.date(),
});

/** A consent row as answered: with the subject id the caller sent, never the stored one. */
function consentOf(c: z.output<typeof consentRow>, subjectId: string): ConsentBody {
  return {
    subject_id: subjectId,
    purposes: c.purposes,
    policy_version: c.policy_version,
    consented_at: c.consented_at.toISOString(),
    recorded_at: c.recorded_at.toISOString(),
  };
}

const CONSENT_COLUMNS = sql`purposes, policy_version, consented_at, recorded_at`;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

// The answers of a request without its subject's proof: those of a subject without a consent.
const NO_CONSENT = 'No current consent for this subject and consent proof: send the consent_proof its first consent answered in x-consent-proof.';
const NOT_YOURS = 'No consent of this subject matches the consent proof sent in x-consent-proof: only the proof its first consent answered withdraws it.';
const noConsentCovering = (purpose: string) =>
  `No current consent covering ${purpose} for this subject and consent proof: record one with POST /functions/v1/consents first, and send the consent_proof it answered in x-consent-proof.`;

/** The subject's keyed id in the app, and the keys. */
async function subjectOf(app: Pick<AppPrincipal, 'appId'>, subjectId: string, services: DataServices): Promise<{ keys: SubjectKeys; stored: string }> {
  const keys = subjectKeys(await services.sdkSecret());
  return { keys, stored: storedSubjectId(keys, app.appId, subjectId) };
}

/** Takes the subject's lock for the rest of the transaction: alone to change it, shared to add data. */
async function lockSubject(tx: Statements, stored: string, mode: 'alone' | 'shared'): Promise<void> {
  const [a, b] = subjectLock(stored);
  await tx.query(mode === 'alone' ? sql`select pg_advisory_xact_lock(${a}::int, ${b}::int)` : sql`select pg_advisory_xact_lock_shared(${a}::int, ${b}::int)`);
}

/** Whether the subject exists in the app and the proof is its own (compared in constant time). */
async function ownsSubject(tx: Statements, stored: string, proof: string | null): Promise<boolean> {
  if (proof === null) return false;
  const [row] = await tx.query(
    sql`select proof_hash from public.data_subjects where app_id = public.sdk_app_id() and subject_hash = ${stored}`,
    z.object({ proof_hash: z.string() }),
  );
  return row !== undefined && sameText(row.proof_hash, proofHash(proof));
}

/** `consented_at` as recorded: null for now; a time in the future or too long ago is a 400. */
function plausibleConsentTime(value: string | undefined, now: number): Date | null {
  if (value === undefined) return null;
  const at = Date.parse(value);
  if (at > now + CONSENT_CLOCK_SKEW_MINUTES * MINUTE_MS || at < now - CONSENT_MAX_AGE_DAYS * DAY_MS) {
    throw new ApiError(
      'invalid_request',
      `consented_at must be within the last ${CONSENT_MAX_AGE_DAYS} days and at most ${CONSENT_CLOCK_SKEW_MINUTES} minutes ahead of the service's clock (${new Date(now).toISOString()}): record a consent when it is given, or leave consented_at out for now.`,
    );
  }
  return new Date(at);
}

/** Seconds until `ms` (at least 1), for Retry-After. */
const secondsUntil = (ms: number, now: number) => String(Math.max(1, Math.ceil((ms - now) / 1000)));

/**
 * Records the subject's consent: a new row, which supersedes the current one. A new subject gets a
 * consent proof (within its address's hourly count of new subjects); an existing one needs its
 * proof. Data of purposes the new consent no longer covers is deleted (public.data_records_erase).
 */
export async function recordConsent(
  app: AppPrincipal,
  request: z.output<typeof consentRequest>,
  asker: Asker,
  services: DataServices,
): Promise<z.output<typeof recordedConsentBody>> {
  const now = services.now();
  const consentedAt = plausibleConsentTime(request.consented_at, now);
  const { keys, stored } = await subjectOf(app, request.subject_id, services);
  const purposes = [...new Set(request.purposes)].sort();
  const dropped = Object.entries(PURPOSE_OF_KIND)
    .filter(([, purpose]) => !request.purposes.includes(purpose))
    .map(([kind]) => kind);
  return asApp(await services.database(), app).transaction(async (tx) => {
    await lockSubject(tx, stored, 'alone');
    const [seen] = await tx.query(
      sql`select exists (select 1 from public.data_subjects where app_id = public.sdk_app_id() and subject_hash = ${stored})
              or exists (select 1 from public.data_consents where app_id = public.sdk_app_id() and subject_hash = ${stored}) as known`,
      z.object({ known: z.boolean() }),
    );
    let proof: string;
    if (!seen?.known) {
      proof = await newSubject(tx, stored, arrivalAddress(keys, asker.clientIp), now);
    } else if (asker.proof !== null && (await ownsSubject(tx, stored, asker.proof))) {
      proof = asker.proof;
    } else {
      throw new ApiError('forbidden', 'This subject already has a consent with this app: send its consent proof in x-consent-proof to change it.');
    }
    const [row] = await tx.query(
      sql`insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
          values (public.sdk_app_id(), public.sdk_user_id(), ${stored}, ${purposes}::text[], ${request.policy_version}, coalesce(${consentedAt}::timestamptz, now()))
          returning ${CONSENT_COLUMNS}`,
      consentRow,
    );
    if (dropped.length > 0) {
      await tx.query(sql`select public.data_records_erase(${stored}, ${dropped}::text[], 'purpose_withdrawn')`);
    }
    // An insert without `on conflict` answers its row, or fails.
    return { ...consentOf(row!, request.subject_id), consent_proof: proof };
  });
}

/** A subject the app has never seen: counted against its address's new subjects of the hour; answers its proof. */
async function newSubject(tx: Statements, stored: string, address: string, now: number): Promise<string> {
  const limit = env().CONSENT_NEW_SUBJECTS_PER_ADDRESS_HOUR;
  const [recent] = await tx.query(
    sql`select count(*)::int as arrivals, min(arrived_at) as oldest from public.data_subject_arrivals
        where app_id = public.sdk_app_id() and address_hash = ${address} and arrived_at > now() - interval '1 hour'`,
    // No arrival within the hour: a count of 0, and no oldest.
    z.object({ arrivals: z.number().int(), oldest: z.date().nullable() }),
  );
  if (recent && recent.arrivals >= limit) {
    const retry = recent.oldest ? secondsUntil(recent.oldest.getTime() + 3_600_000, now) : '3600';
    throw new ApiError(
      'rate_limited',
      `This address has brought ${limit} new subjects to this app in the last hour, the most it may: retry after the seconds in Retry-After. A subject that consented before is not limited.`,
      { 'Retry-After': retry },
    );
  }
  // And the app's new subjects of the UTC day, in all (migration 20261213000601): a script making
  // up people from many addresses is bounded too. Counted in the app's row of the day's usage,
  // under its lock; a refusal rolls the count back with the transaction.
  const perDay = env().CONSENT_NEW_SUBJECTS_PER_APP_DAY;
  const [today] = await tx.query(
    sql`insert into public.data_daily_usage as u (app_id, day, subject_hash, subjects)
        values (public.sdk_app_id(), (now() at time zone 'UTC')::date, '', 1)
        on conflict (app_id, day, subject_hash) do update set subjects = u.subjects + 1
        returning subjects`,
    z.object({ subjects: z.number().int() }),
  );
  if (today && today.subjects > perDay) {
    throw new ApiError(
      'rate_limited',
      `This app has taken ${perDay} new subjects today (UTC), the most it may: retry after the seconds in Retry-After. A subject that consented before is not limited.`,
      { 'Retry-After': secondsUntil((Math.floor(now / DAY_MS) + 1) * DAY_MS, now) },
    );
  }
  const proof = newConsentProof();
  // The arrivals of more than an hour ago, and the usage of earlier days, are no longer counted:
  // forgotten as new ones come.
  await tx.query(
    sql`with forgotten as (
          delete from public.data_subject_arrivals where app_id = public.sdk_app_id() and arrived_at <= now() - interval '1 hour' returning 1
        ), past_days as (
          delete from public.data_daily_usage where app_id = public.sdk_app_id() and day < (now() at time zone 'UTC')::date returning 1
        ), arrived as (
          insert into public.data_subject_arrivals (app_id, address_hash) values (public.sdk_app_id(), ${address}) returning 1
        )
        insert into public.data_subjects (app_id, subject_hash, proof_hash) values (public.sdk_app_id(), ${stored}, ${proofHash(proof)}) returning 1`,
  );
  return proof;
}

/** The app's subject (`s`, by its stored hash) with its latest consent (`c`): what reading and changing a consent start from. */
function subjectWithLatestConsent(stored: string): Sql {
  return sql`from public.data_subjects s
    join lateral (
      select * from public.data_consents c
      where c.app_id = s.app_id and c.subject_hash = s.subject_hash order by c.seq desc limit 1
    ) c on true
    where s.app_id = public.sdk_app_id() and s.subject_hash = ${stored}`;
}

/** The subject's current consent, for its proof; throws the 404 of none (also without the proof, or with a wrong one). */
export async function currentConsent(app: AppPrincipal, subjectId: string, asker: Asker, services: DataServices): Promise<ConsentBody> {
  if (asker.proof === null) throw new ApiError('not_found', NO_CONSENT);
  const { stored } = await subjectOf(app, subjectId, services);
  const [row] = await asApp(await services.database(), app).query(
    sql`select s.proof_hash, c.withdrawn_at is not null as withdrawn, ${CONSENT_COLUMNS}
        ${subjectWithLatestConsent(stored)}`,
    consentRow.extend({ proof_hash: z.string(), withdrawn: z.boolean() }),
  );
  if (!row || !sameText(row.proof_hash, proofHash(asker.proof)) || row.withdrawn) throw new ApiError('not_found', NO_CONSENT);
  return consentOf(row, subjectId);
}

/**
 * Withdraws the subject's consent, for its proof: a withdrawal row, and its unsold data deleted.
 * Throws the 403 of a subject without a consent (also without the proof, or with a wrong one).
 */
export async function withdrawConsent(app: AppPrincipal, subjectId: string, asker: Asker, services: DataServices): Promise<z.output<typeof withdrawalBody>> {
  if (asker.proof === null) throw new ApiError('forbidden', NOT_YOURS);
  return withdraw(app, subjectId, asker.proof, services);
}

/**
 * The publisher's own withdrawal of a user's consent, from the console: the signed-in owner of the
 * app speaks for its users (a user who lost their proof, a request the publisher received by
 * email, an account deleted), without the proof. The caller has checked that `app` is theirs.
 */
export async function withdrawConsentForPublisher(
  app: Pick<AppPrincipal, 'appId' | 'userId'>,
  subjectId: string,
  services: DataServices,
): Promise<z.output<typeof withdrawalBody>> {
  return withdraw(app, subjectId, 'publisher', services);
}

/** Withdraws for the subject's proof, or for the app's publisher. */
async function withdraw(
  app: Pick<AppPrincipal, 'appId' | 'userId'>,
  subjectId: string,
  asker: string | 'publisher',
  services: DataServices,
): Promise<z.output<typeof withdrawalBody>> {
  const { stored } = await subjectOf(app, subjectId, services);
  return asApp(await services.database(), app).transaction(async (tx) => {
    await lockSubject(tx, stored, 'alone');
    if (asker !== 'publisher' && !(await ownsSubject(tx, stored, asker))) throw new ApiError('forbidden', NOT_YOURS);
    // The latest row, copied as its withdrawal, unless it is one already.
    const withdrawn = await tx.query(
      sql`insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at, withdrawn_at)
          select c.app_id, public.sdk_user_id(), c.subject_hash, c.purposes, c.policy_version, c.consented_at, now()
          from (
            select * from public.data_consents
            where app_id = public.sdk_app_id() and subject_hash = ${stored} order by seq desc limit 1
          ) c
          where c.withdrawn_at is null
          returning 1`,
    );
    const [erased] = await tx.query(
      sql`select public.data_records_erase(${stored}, null, 'consent_withdrawn') as deleted`,
      z.object({ deleted: z.number().int() }),
    );
    return { subject_id: subjectId, withdrawn: withdrawn.length > 0, deleted_records: erased?.deleted ?? 0 };
  });
}

const consentFound = z.object({ id: z.string(), purposes: z.array(z.string()), withdrawn: z.boolean(), proof_hash: z.string() });
const saved = z.object({ stored: z.number(), bytes: z.number() });
const usage = z.object({ subject_hash: z.string(), records: z.number(), bytes: z.number() });

/**
 * Stores the records, for the subject's proof; throws the 403 of a subject without a current
 * consent covering the kind (also without the proof, or with a wrong one), and the 429 of a daily
 * quota the records would pass (then nothing of the request is stored).
 */
export async function submitData(app: AppPrincipal, request: DataRequest, asker: Asker, services: DataServices): Promise<z.output<typeof dataBody>> {
  const purpose = PURPOSE_OF_KIND[request.kind];
  if (asker.proof === null) throw new ApiError('forbidden', noConsentCovering(purpose));
  const { stored } = await subjectOf(app, request.subject_id, services);
  const records = request.records.map((r) => ({ id: r.id, data: r.data }));
  const proof = asker.proof;
  const now = services.now();
  return asApp(await services.database(), app).transaction(async (tx) => {
    await lockSubject(tx, stored, 'shared');
    const [consent] = await tx.query(
      sql`select c.id, c.purposes, c.withdrawn_at is not null as withdrawn, s.proof_hash
          ${subjectWithLatestConsent(stored)}`,
      consentFound,
    );
    // One answer for all: no subject, a wrong proof, a withdrawn consent, another purpose.
    if (!consent || !sameText(consent.proof_hash, proofHash(proof)) || consent.withdrawn || !consent.purposes.includes(purpose)) {
      throw new ApiError('forbidden', noConsentCovering(purpose));
    }
    // A record id is unique per subject (migration 20261213001000): a retry of this subject's
    // record is a duplicate, and no other subject's ids (a stranger's made-up ones) can take it first.
    const [counted] = await tx.query(
      sql`with saved as (
            insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes)
            select public.sdk_app_id(), public.sdk_user_id(), ${consent.id}::uuid, ${stored}, ${request.kind}, r.id, r.data, octet_length(r.data::text)
            from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as r(id text, data jsonb)
            on conflict (app_id, subject_hash, kind, record_id) do nothing
            returning bytes
          )
          select count(*)::int as stored, coalesce(sum(bytes), 0)::float8 as bytes from saved`,
      saved,
    );
    // An aggregate without `group by` answers one row, always.
    const outcome = counted!;
    if (outcome.stored > 0) await countUsage(tx, stored, outcome, now);
    return { received: records.length, stored: outcome.stored, duplicates: records.length - outcome.stored };
  });
}

/** Adds what was stored to the day's usage of the subject and of the app; throws the 429 of a quota passed. */
async function countUsage(tx: Statements, stored: string, added: z.output<typeof saved>, now: number): Promise<void> {
  const totals = await tx.query(
    sql`insert into public.data_daily_usage as u (app_id, day, subject_hash, records, bytes)
        select public.sdk_app_id(), (now() at time zone 'UTC')::date, s, ${added.stored}, ${added.bytes}::bigint
        from unnest(array['', ${stored}]) as s
        on conflict (app_id, day, subject_hash) do update set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes
        returning subject_hash, records, bytes::float8 as bytes`,
    usage,
  );
  const { DATA_SUBJECT_RECORDS_PER_DAY, DATA_SUBJECT_BYTES_PER_DAY, DATA_APP_RECORDS_PER_DAY, DATA_APP_BYTES_PER_DAY } = env();
  const retry = { 'Retry-After': secondsUntil((Math.floor(now / DAY_MS) + 1) * DAY_MS, now) };
  const subject = totals.find((t) => t.subject_hash !== '');
  if (subject && (subject.records > DATA_SUBJECT_RECORDS_PER_DAY || subject.bytes > DATA_SUBJECT_BYTES_PER_DAY)) {
    throw new ApiError(
      'rate_limited',
      `This request would take this subject's consented data in this app past its quota of ${DATA_SUBJECT_RECORDS_PER_DAY} records and ${DATA_SUBJECT_BYTES_PER_DAY} bytes per day (UTC). Nothing of it was stored: send the rest after the seconds in Retry-After.`,
      retry,
    );
  }
  const total = totals.find((t) => t.subject_hash === '');
  if (total && (total.records > DATA_APP_RECORDS_PER_DAY || total.bytes > DATA_APP_BYTES_PER_DAY)) {
    throw new ApiError(
      'rate_limited',
      `This request would take the consented data of this app past its quota of ${DATA_APP_RECORDS_PER_DAY} records and ${DATA_APP_BYTES_PER_DAY} bytes per day (UTC). Nothing of it was stored: send the rest after the seconds in Retry-After.`,
      retry,
    );
  }
  // The counts of earlier days are no longer needed: forgotten as the day's are written.
  await tx.query(sql`delete from public.data_daily_usage where app_id = public.sdk_app_id() and day < (now() at time zone 'UTC')::date returning 1`);
}
