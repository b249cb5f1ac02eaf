-- Whether a list of phrases (a campaign's context hints and excluded phrases, an app's excluded
-- topics, a decision's matched hints) fits: at most 20, each of 1 to 60 characters
-- (public.texts_fit; migration 20261215000100_campaign_context).
create or replace function public.phrases_fit(p_phrases text[]) returns boolean
language plpgsql immutable strict set search_path = ''
as $$
begin
  return public.texts_fit(p_phrases, 20, 60);
end $$;

revoke all on function public.phrases_fit(text[]) from public;
grant execute on function public.phrases_fit(text[]) to anon, authenticated, sdk, service_role;
