-- Issue 41: what an advertiser says about where a campaign's ads fit in a conversation, and what
-- kind of advertiser it is.
--
-- - context_hints: up to 20 short phrases where the ads fit ("meeting notes", "cheap flights");
--   a conversation that mentions them makes the campaign relevant (lib/ads/relevance/score.ts).
-- - excluded_phrases: up to 20 phrases after which its ads never show.
-- - advertiser_category: one of a short fixed list, which an app may block.
--
-- Each phrase takes 1 to 60 characters; the advertiser's form also keeps them to 5 words and
-- refuses a phrase of common words alone (lib/ads/advertisers/schemas.ts). The operator reads
-- all three at review (public.staff_advertising_queue), and the advertiser's API read answers
-- them (public.account_campaigns).

create or replace function public.phrases_fit(p_phrases text[]) returns boolean
language sql immutable set search_path = ''
as $$
  select coalesce(array_ndims(p_phrases), 1) = 1
     and cardinality(p_phrases) <= 20
     and array_position(p_phrases, null) is null
     and coalesce((select bool_and(length(p) between 1 and 60 and p = btrim(p)) from unnest(p_phrases) p), true)
$$;

revoke all on function public.phrases_fit(text[]) from public;
grant execute on function public.phrases_fit(text[]) to anon, authenticated, sdk, service_role;

alter table public.campaigns
  add column context_hints text[] not null default '{}',
  add column excluded_phrases text[] not null default '{}',
  add column advertiser_category text not null default 'other',
  add constraint campaigns_context_hints_fit check (public.phrases_fit(context_hints)),
  add constraint campaigns_excluded_phrases_fit check (public.phrases_fit(excluded_phrases)),
  add constraint campaigns_advertiser_category_check check (advertiser_category in
    ('software', 'education', 'finance', 'travel', 'retail', 'food_drink', 'health_fitness', 'entertainment',
     'gaming', 'dating', 'gambling', 'alcohol', 'crypto', 'other'));

grant insert (context_hints, excluded_phrases, advertiser_category) on table public.campaigns to authenticated;
grant update (context_hints, excluded_phrases, advertiser_category) on table public.campaigns to authenticated;

-- The advertiser's API read and the operator's review queue answer the three.
create or replace function public.account_campaigns() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'balance_micro', (select coalesce(sum(p.amount_micro), 0)::bigint
                              from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                              where a.kind = 'advertiser'),
            'campaigns', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                          from (select c.id, c.name, c.status, c.pause_reason, c.rejection_reason, c.starts_at, c.ends_at, c.hard_stop,
                                       c.formats, c.lifetime_budget_micro, c.daily_cap_micro, c.created_at,
                                       c.context_hints, c.excluded_phrases, c.advertiser_category,
                                       coalesce(s.impressions, 0)::bigint as impressions, coalesce(s.clicks, 0)::bigint as clicks,
                                       coalesce(s.spend_micro, 0)::bigint as spend_micro, coalesce(k.creatives, '[]') as creatives
                                from public.campaigns c
                                left join (select d.campaign_id, sum(d.impressions) as impressions, sum(d.clicks) as clicks,
                                                  sum(d.spent_micro) as spend_micro
                                           from public.campaign_daily_stats d group by d.campaign_id) s on s.campaign_id = c.id
                                left join (select x.campaign_id,
                                                  json_agg(json_build_object('id', x.id, 'format', x.format, 'status', x.status,
                                                                             'rejection_reason', x.rejection_reason, 'headline', x.headline)
                                                           order by x.created_at, x.id) as creatives
                                           from public.creatives x group by x.campaign_id) k on k.campaign_id = c.id) r))
          from public.users u);
end $$;

revoke execute on function public.account_campaigns() from public, anon;
grant execute on function public.account_campaigns() to authenticated;

create or replace function public.staff_advertising_queue(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'top_ups', (select coalesce(json_agg(r order by r.requested_at), '[]')
                from (select t.id, t.invoice_number, t.amount_micro, t.rail, t.requested_at, u.email, t.account_kind,
                             case when t.account_kind = 'buyer' then b.company else p.company end as company
                      from public.top_ups t join public.users u on u.id = t.user_id
                      left join public.advertiser_profiles p on p.user_id = t.user_id
                      left join public.buyer_profiles b on b.user_id = t.user_id
                      where t.status = 'requested' and t.rail = 'manual'
                      order by t.requested_at limit p_limit) r),
    'campaigns', (select coalesce(json_agg(r order by r.submitted_at), '[]')
                  from (select c.id, c.name, c.advertiser, u.email, c.status, c.submitted_at, c.starts_at, c.ends_at, c.hard_stop,
                               c.lifetime_budget_micro, c.daily_cap_micro, c.formats, c.keywords, c.include_categories, c.exclude_categories,
                               c.context_hints, c.excluded_phrases, c.advertiser_category,
                               (select coalesce(json_agg(x order by x.created_at), '[]')
                                from (select cr.id, cr.format, cr.status, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url,
                                             cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.created_at
                                      from public.creatives cr where cr.campaign_id = c.id) x) as creatives
                        from public.campaigns c join public.users u on u.id = c.advertiser_id
                        where c.status = 'in_review'
                        order by c.submitted_at nulls last limit p_limit) r),
    'creatives', (select coalesce(json_agg(r order by r.updated_at), '[]')
                  from (select cr.id, cr.campaign_id, c.name as campaign, c.advertiser, cr.format, cr.headline, cr.body, cr.cta,
                               cr.image_url, cr.video_url, cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.updated_at
                        from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
                        where cr.status = 'in_review' and c.status not in ('draft', 'in_review', 'rejected', 'completed')
                        order by cr.updated_at limit p_limit) r),
    'advertisers', (select coalesce(json_agg(r order by r.company), '[]')
                    from (select p.user_id, p.company, u.email, public.ledger_balance_micro('advertiser', p.user_id) as balance_micro,
                                 (select count(*) from public.campaigns c where c.advertiser_id = p.user_id and c.status = 'active') as active_campaigns
                          from public.advertiser_profiles p join public.users u on u.id = p.user_id
                          order by p.company limit p_limit) r));
end $$;

revoke all on function public.staff_advertising_queue(integer) from public, anon, sdk;
grant execute on function public.staff_advertising_queue(integer) to authenticated;
