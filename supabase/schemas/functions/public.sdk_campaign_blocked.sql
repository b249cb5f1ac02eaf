-- Whether the app blocked this campaign: its advertiser's name (without case; the app's list is
-- lower-cased by the caller) or its category.
create or replace function public.sdk_campaign_blocked(p_advertiser text, p_category text, p_blocked_advertisers text[], p_blocked_categories text[])
returns boolean
language sql immutable
as $$
  select lower(p_advertiser) = any(p_blocked_advertisers) or p_category = any(p_blocked_categories)
$$;

revoke all on function public.sdk_campaign_blocked(text, text, text[], text[]) from public, anon, authenticated;
grant execute on function public.sdk_campaign_blocked(text, text, text[], text[]) to sdk;
