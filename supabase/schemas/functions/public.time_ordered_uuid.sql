-- Decision ids are time-ordered (the layout of UUID version 7: milliseconds first, then random
-- bits): new ids go to the right edge of the primary key, and an event, which comes for an ad
-- served moments before, finds its decision among the index pages just written. Random ids
-- scattered each insert and each lookup over the whole index: on a table larger than memory,
-- a disk read per event (`npm run bench`). The default of `ad_decisions.id`.
create or replace function public.time_ordered_uuid() returns uuid
language sql volatile
as $$
  select (substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(r, 16, 3) || substr(r, 19))::uuid
  from (select lpad(to_hex(floor(extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') as t,
               gen_random_uuid()::text as r) as parts
$$;
