-- Issue 39: a record id is the app's user's, so it is unique per subject, not per app. It was
-- unique per app and kind (data_records_once), so a stranger holding the page's key could record
-- a made-up subject's first consent and submit records under the ids a real user would send
-- later: the user's records were then answered as duplicates and never stored, and the answer
-- told whether some other subject had used an id. Now a record is stored once per app, subject
-- (its keyed id, data_subjects.subject_hash), kind and id: a subject's retry is still a duplicate
-- of its own record, and another subject's ids change nothing of its answers
-- (lib/sdk/data.ts, `submitData`).
--
-- Every existing row stays valid: rows unique per (app_id, kind, record_id) are unique per
-- (app_id, subject_hash, kind, record_id) too. Buyers never see these ids: their files, deletion
-- notices and webhooks name a record by its uuid (data_records.id), one per stored record.
alter table public.data_records
  add constraint data_records_once_per_subject unique (app_id, subject_hash, kind, record_id);
alter table public.data_records drop constraint data_records_once;
-- The new index begins with (app_id, subject_hash): it serves a subject's lookups (its erasure,
-- public.data_records_erase), so this one would only cost every insert and its storage.
drop index public.data_records_subject;
comment on column public.data_records.record_id is 'The app''s id for the record, unique per subject and kind: a retried submission is stored once. Never shown to buyers (they get id).';
