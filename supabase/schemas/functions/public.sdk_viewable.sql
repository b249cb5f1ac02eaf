-- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for ads of
-- 242,500 pixels or more, and 50% for two seconds of playback for video.
create or replace function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
returns boolean
language sql immutable
as $$
  select coalesce(
    p_seconds >= case when p_format = 'floating_video' then 2 else 1 end
    and p_share >= case when p_format <> 'floating_video' and coalesce(p_area, 0) >= 242500 then 0.3 else 0.5 end,
    false)
$$;
