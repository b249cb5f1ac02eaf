-- Keeps `data_catalog_counts` as records are stored, held, released, licensed and erased
-- (migration 20261209000000_data_buyers): statement-level, from the statement's rows, each row
-- counted in its kind, app, UTC day received and model, as stored, as held (under an exclusive
-- license) and as fresh (never licensed, not held). An update counts the rows as they are now
-- and takes back what they counted before.
create or replace function public.data_catalog_count()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into public.data_catalog_counts as c (kind, app_id, day, model, records, bytes, held_records, held_bytes, fresh_records, fresh_bytes)
    select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date, coalesce(r.model, ''), count(*), sum(r.bytes),
           count(*) filter (where r.exclusive_license_id is not null), coalesce(sum(r.bytes) filter (where r.exclusive_license_id is not null), 0),
           count(*) filter (where r.exclusive_license_id is null and r.status = 'unsold'),
           coalesce(sum(r.bytes) filter (where r.exclusive_license_id is null and r.status = 'unsold'), 0)
    from added r group by 1, 2, 3, 4
    on conflict (kind, app_id, day, model) do update set
      records = c.records + excluded.records, bytes = c.bytes + excluded.bytes,
      held_records = c.held_records + excluded.held_records, held_bytes = c.held_bytes + excluded.held_bytes,
      fresh_records = c.fresh_records + excluded.fresh_records, fresh_bytes = c.fresh_bytes + excluded.fresh_bytes;
  elsif tg_op = 'DELETE' then
    update public.data_catalog_counts c set
      records = c.records - d.records, bytes = c.bytes - d.bytes, held_records = c.held_records - d.held_records,
      held_bytes = c.held_bytes - d.held_bytes, fresh_records = c.fresh_records - d.fresh_records, fresh_bytes = c.fresh_bytes - d.fresh_bytes
    from (
      select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date as day, coalesce(r.model, '') as model, count(*) as records, sum(r.bytes) as bytes,
             count(*) filter (where r.exclusive_license_id is not null) as held_records,
             coalesce(sum(r.bytes) filter (where r.exclusive_license_id is not null), 0) as held_bytes,
             count(*) filter (where r.exclusive_license_id is null and r.status = 'unsold') as fresh_records,
             coalesce(sum(r.bytes) filter (where r.exclusive_license_id is null and r.status = 'unsold'), 0) as fresh_bytes
      from removed r group by 1, 2, 3, 4
    ) d
    where c.kind = d.kind and c.app_id = d.app_id and c.day = d.day and c.model = d.model;
  else
    update public.data_catalog_counts c set
      held_records = c.held_records + d.held_records, held_bytes = c.held_bytes + d.held_bytes,
      fresh_records = c.fresh_records + d.fresh_records, fresh_bytes = c.fresh_bytes + d.fresh_bytes
    from (
      select x.kind, x.app_id, x.day, x.model, sum(x.held) as held_records, sum(x.held * x.bytes) as held_bytes,
             sum(x.fresh) as fresh_records, sum(x.fresh * x.bytes) as fresh_bytes
      from (
        select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date as day, coalesce(r.model, '') as model, r.bytes::bigint as bytes,
               (r.exclusive_license_id is not null)::int as held, (r.exclusive_license_id is null and r.status = 'unsold')::int as fresh
        from added r
        union all
        select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date, coalesce(r.model, ''), r.bytes::bigint,
               -(r.exclusive_license_id is not null)::int, -(r.exclusive_license_id is null and r.status = 'unsold')::int
        from removed r
      ) x
      group by 1, 2, 3, 4
    ) d
    where c.kind = d.kind and c.app_id = d.app_id and c.day = d.day and c.model = d.model
      and (d.held_records <> 0 or d.fresh_records <> 0);
  end if;
  return null;
end $$;

revoke all on function public.data_catalog_count() from public, anon, authenticated, sdk, service_role;
