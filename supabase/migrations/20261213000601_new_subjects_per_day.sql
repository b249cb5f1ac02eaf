-- Issue 39, finding 1: first consents are counted per app and day. A new publisher's script
-- could make up subjects from many addresses (the hourly count is per address); now an app takes
-- at most CONSENT_NEW_SUBJECTS_PER_APP_DAY new subjects per UTC day (lib/sdk/data.ts). The count
-- is kept in the app's row of the day's usage (subject ''), where its records and bytes already
-- are: one row per app and day, updated under its lock, so concurrent first consents count
-- exactly; a refused consent's transaction rolls its count back.
alter table public.data_daily_usage
  add column subjects integer not null default 0 check (subjects >= 0 and (subjects = 0 or subject_hash = ''));
comment on column public.data_daily_usage.subjects is 'New subjects (first consents) of the app that day; only in the app''s row (subject_hash = '''').';
grant update (subjects) on public.data_daily_usage to sdk;
