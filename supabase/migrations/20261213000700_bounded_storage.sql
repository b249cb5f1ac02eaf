-- An advertiser's account stores within bounds (issue 39): a free account kept every file of
-- every edit (25 edits of a 2 MB image kept 51 MB in a second), made 374 campaigns in ten
-- seconds, and opened card sessions without end. Now:
-- - public.creative_files: one row per file stored for a creative, written before the file is
--   (public.creative_files_reserve, which refuses past 500 MB per advertiser), followed by a
--   trigger on creatives (public.creative_files_follow), swept by the service
--   (public.creative_files_sweepable, public.creative_files_forget, lib/advertisers/files.ts):
--   a file no creative names is deleted once no decision of the last 24 hours can name it, a
--   file no creative ever named an hour after it was stored, and an object of the store that no
--   table knows (public.creative_keys_known) an hour after it was written.
-- - At most 100 campaigns not completed per advertiser, 20 creatives per campaign and 200 in an
--   advertiser's campaigns not completed (public.campaigns_within_limit,
--   public.creatives_within_limit), as the publisher limits are (migration
--   20261202000000_publisher_limits).
-- - At most 5 card top-ups opened and not paid in 24 hours (public.top_up_checkout_refusal).

create table public.creative_files (
  key            text primary key check (key ~ '^[A-Za-z0-9_-]{22}\.[a-z0-9]{1,5}$'),
  advertiser_id  uuid not null references public.users (id) on delete cascade,
  bytes          bigint not null check (bytes >= 0),
  stored_at      timestamptz not null default now(),
  -- The creative that names it (null until its write), the first time it was named while that
  -- creative was approved (so a decision may have sent it to a page), and when it stopped being named.
  creative_id    uuid,
  served_from    timestamptz,
  released_at    timestamptz
);
-- The service's alone: advertisers reach it through public.creative_files_reserve only.
alter table public.creative_files enable row level security;
alter table public.creative_files force row level security;
create index creative_files_advertiser on public.creative_files (advertiser_id);
create index creative_files_sweep on public.creative_files (stored_at) where creative_id is null or released_at is not null;
grant select, insert, update, delete on public.creative_files to service_role;
create policy "The service keeps the stored files"
  on public.creative_files for all to service_role using (true) with check (true);

-- The files creatives name today, each its creative's: sizes unknown (0) until the orphan sweep
-- reads them, and counted from then on.
insert into public.creative_files (key, advertiser_id, bytes, creative_id, served_from)
select distinct on (m.key) m.key, c.advertiser_id, 0, cr.id, case when cr.status in ('active', 'paused') then now() end
from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
cross join lateral (values (substr(cr.image_url, 8)), (substr(cr.video_url, 8))) m (key)
where m.key ~ '^[A-Za-z0-9_-]{22}\.[a-z0-9]{1,5}$'
  and (cr.image_url = '/media/' || m.key or cr.video_url = '/media/' || m.key)
on conflict (key) do nothing;

-- Which creative names each stored file (public.creative_files, migration
-- 20261213000700_bounded_storage), kept by a trigger after every write of a creative's media, its
-- status or the creative itself, whoever writes it. A file the creative now names is attached to
-- it (and marked `served_from` the first time it is named while the creative is approved, so that
-- a decision may have sent it to a page); a file it named before and names no longer is
-- `released_at` now. The sweep (public.creative_files_sweepable) deletes what is released.
create or replace function public.creative_files_follow() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_old text[] := '{}';
  v_new text[] := '{}';
begin
  if tg_op <> 'INSERT' then
    v_old := array_remove(array[case when old.image_url like '/media/%' then substr(old.image_url, 8) end,
                                case when old.video_url like '/media/%' then substr(old.video_url, 8) end], null);
  end if;
  if tg_op <> 'DELETE' then
    v_new := array_remove(array[case when new.image_url like '/media/%' then substr(new.image_url, 8) end,
                                case when new.video_url like '/media/%' then substr(new.video_url, 8) end], null);
    update public.creative_files f
       set creative_id = new.id, released_at = null,
           served_from = case when new.status = 'active' then coalesce(f.served_from, now()) else f.served_from end
     where f.key = any(v_new);
  end if;
  update public.creative_files f set released_at = now()
   where f.key = any(v_old) and not (f.key = any(v_new)) and f.released_at is null;
  return null;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.creative_files_follow() from public, anon, authenticated, service_role, sdk;

-- Room for the files of one creative form (`p_keys`, of `p_bytes` each), asked as the advertiser
-- before anything is stored (lib/advertisers/files.ts; migration 20261213000700_bounded_storage):
-- a row of public.creative_files per file, the advertiser's, named by no creative yet. Refused,
-- and nothing written, when the advertiser's stored files (all their rows: named, waiting for a
-- creative, or released and not yet swept) and these would pass 500 MB (ADVERTISER_LIMITS in
-- lib/advertisers/schemas.ts): `{ok: false, error: 'storage_full', used_bytes, limit_bytes}`.
-- The advertiser's advisory lock first (as public.campaigns_within_limit), so two uploads at once
-- cannot both take the last room. A row that never reaches a creative is swept an hour later.
create or replace function public.creative_files_reserve(p_keys text[], p_bytes bigint[])
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_used bigint;
  v_limit constant bigint := 524288000;
begin
  if v_user is null or not exists (select 1 from public.advertiser_profiles p where p.user_id = v_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  if coalesce(array_length(p_keys, 1), 0) <> coalesce(array_length(p_bytes, 1), 0)
     or exists (select 1 from unnest(p_bytes) b where b is null or b < 0) then
    raise exception 'one size per key' using errcode = 'invalid_parameter_value';
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || v_user::text, 0));
  select coalesce(sum(f.bytes), 0) into v_used from public.creative_files f where f.advertiser_id = v_user;
  if v_used + coalesce((select sum(b) from unnest(p_bytes) b), 0) > v_limit then
    return json_build_object('ok', false, 'error', 'storage_full', 'used_bytes', v_used, 'limit_bytes', v_limit);
  end if;
  insert into public.creative_files (key, advertiser_id, bytes)
  select k.key, v_user, k.bytes from unnest(p_keys, p_bytes) as k (key, bytes);
  return json_build_object('ok', true);
end $$;

revoke all on function public.creative_files_reserve(text[], bigint[]) from public, anon, sdk;
grant execute on function public.creative_files_reserve(text[], bigint[]) to authenticated;

-- The stored files of creatives that may be deleted now (migration 20261213000700_bounded_storage;
-- lib/advertisers/files.ts deletes each object, then its row with public.creative_files_forget),
-- of one advertiser or of all (`p_advertiser` null), at most `p_limit`:
-- - a file no creative names any more (`released_at`) that no decision can have sent to a page
--   in the last 24 hours: never named while its creative was approved (`served_from` null: an
--   edit sends a creative to review, and only an approved one is served), or released more than
--   24 hours ago (a decision names the file its creative named when it was made, so none of the
--   last 24 hours names a file released before them);
-- - a file reserved more than an hour ago that no creative ever named (its upload failed between
--   storing and writing the creative, or its process died).
-- 24 hours, not the 15 minutes an impression may be reported in: a page may keep showing an ad
-- after its impression counted, and the files kept are few (each needs the operator's approval).
create or replace function public.creative_files_sweepable(p_advertiser uuid default null, p_limit integer default 500)
returns setof text
language sql stable security definer set search_path = ''
as $$
  select f.key from public.creative_files f
  where (p_advertiser is null or f.advertiser_id = p_advertiser)
    and ((f.released_at is not null and (f.served_from is null or f.released_at < now() - interval '24 hours'))
         or (f.creative_id is null and f.released_at is null and f.stored_at < now() - interval '1 hour'))
  order by f.stored_at
  limit greatest(p_limit, 0)
$$;

revoke all on function public.creative_files_sweepable(uuid, integer) from public, anon, authenticated, sdk;
grant execute on function public.creative_files_sweepable(uuid, integer) to service_role;

-- Forgets the rows of stored files whose objects were deleted (lib/advertisers/files.ts; migration
-- 20261213000700_bounded_storage): a swept file, or one stored for a creative write that was
-- refused. Never a file a creative names now: such a row stays, whatever the caller asked.
-- Answers how many rows went.
create or replace function public.creative_files_forget(p_keys text[])
returns integer
language sql volatile security definer set search_path = ''
as $$
  with gone as (
    delete from public.creative_files f
    where f.key = any(p_keys) and (f.creative_id is null or f.released_at is not null)
    returning 1
  )
  select count(*)::integer from gone
$$;

revoke all on function public.creative_files_forget(text[]) from public, anon, authenticated, sdk;
grant execute on function public.creative_files_forget(text[]) to service_role;

-- Which of `p_keys`, creatives' files found in the store (lib/platform/storage, `list`), the
-- database still knows (migration 20261213000700_bounded_storage): a row of public.creative_files,
-- or a creative's own URL (a file stored before that table, which its backfill could not size).
-- The orphan sweep (lib/advertisers/files.ts) deletes the others once they are an hour old.
create or replace function public.creative_keys_known(p_keys text[])
returns setof text
language sql stable security definer set search_path = ''
as $$
  select k from unnest(p_keys) k
  where exists (select 1 from public.creative_files f where f.key = k)
     or exists (select 1 from public.creatives c where c.image_url = '/media/' || k or c.video_url = '/media/' || k)
$$;

revoke all on function public.creative_keys_known(text[]) from public, anon, authenticated, sdk;
grant execute on function public.creative_keys_known(text[]) to service_role;

-- At most 100 campaigns an advertiser has not completed (ADVERTISER_LIMITS in
-- lib/advertisers/schemas.ts, content/docs/advertisers.md; migration 20261213000700_bounded_storage):
-- a free account made 374 in ten seconds. A trigger before a campaign is inserted, by the console
-- or any other writer. A completed campaign went through review, so the ones left out of the
-- count are bounded by the operator; a draft can be deleted to make room.
--
-- Two creations at once must not both take the last place: the advertiser's advisory lock first,
-- held to the end of the transaction (creatives and stored files take the same one), then the
-- count, which a PL/pgSQL statement of a volatile function runs on a new snapshot. It runs as its
-- caller: the advertiser sees their own campaigns under row-level security, the service all.
create or replace function public.campaigns_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || new.advertiser_id::text, 0));
  if (select count(*) from public.campaigns c where c.advertiser_id = new.advertiser_id and c.status <> 'completed') >= 100 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'campaigns_open_per_advertiser',
      message = 'an advertiser has at most 100 campaigns that are not completed';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.campaigns_within_limit() from public, anon, authenticated, service_role;

-- At most 20 creatives per campaign, and 200 in an advertiser's campaigns that are not completed
-- (ADVERTISER_LIMITS in lib/advertisers/schemas.ts, content/docs/advertisers.md; migration
-- 20261213000700_bounded_storage). A trigger before a creative is inserted; the same turns as
-- public.campaigns_within_limit (its file says why): the advertiser's advisory lock, then the
-- counts, as the caller (row-level security shows the advertiser their own creatives).
create or replace function public.creatives_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
declare
  v_advertiser uuid;
begin
  select c.advertiser_id into v_advertiser from public.campaigns c where c.id = new.campaign_id;
  if v_advertiser is null then
    return new;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || v_advertiser::text, 0));
  if (select count(*) from public.creatives cr where cr.campaign_id = new.campaign_id) >= 20 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'creatives_per_campaign',
      message = 'a campaign has at most 20 creatives';
  end if;
  if (select count(*) from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
      where c.advertiser_id = v_advertiser and c.status <> 'completed') >= 200 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'creatives_per_advertiser',
      message = 'an advertiser has at most 200 creatives in campaigns that are not completed';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.creatives_within_limit() from public, anon, authenticated, service_role;

-- Why a card top-up (a Stripe Checkout session) of `p_amount_micro` for user `p_user`'s account of
-- kind `p_account_kind` would be refused, or null (migration 20261213000700_bounded_storage):
-- the rule of every rail (public.top_up_refusal), then `too_many_open_checkouts` when the account
-- has 5 card top-ups opened in the last 24 hours and not paid (a session lasts at most 24 hours at
-- Stripe; ADVERTISER_LIMITS in lib/advertisers/schemas.ts). Asked by the console before Stripe is
-- called (lib/advertisers/checkout.ts), never by the webhook: a session paid is credited whatever
-- this says.
create or replace function public.top_up_checkout_refusal(p_user uuid, p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_refusal json := public.top_up_refusal(p_user, p_amount_micro, p_account_kind);
begin
  if v_refusal is not null then
    return v_refusal;
  end if;
  if (select count(*) from public.top_ups t
      where t.user_id = p_user and t.account_kind = p_account_kind and t.rail = 'stripe' and t.status = 'requested'
        and t.requested_at > now() - interval '24 hours') >= 5 then
    return json_build_object('ok', false, 'error', 'too_many_open_checkouts', 'limit', 5);
  end if;
  return null;
end $$;

revoke all on function public.top_up_checkout_refusal(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_checkout_refusal(uuid, bigint, text) to service_role;

create trigger creative_files_follow
  after insert or update of image_url, video_url, status or delete on public.creatives
  for each row execute function public.creative_files_follow();

create trigger campaigns_within_limit
  before insert on public.campaigns
  for each row execute function public.campaigns_within_limit();

create trigger creatives_within_limit
  before insert on public.creatives
  for each row execute function public.creatives_within_limit();

-- The count of an advertiser's card top-ups waiting for payment reads only those.
create index top_ups_open_checkouts on public.top_ups (user_id, requested_at) where rail = 'stripe' and status = 'requested';
