-- What an impression costs the advertiser: the format's CPM / 1000, from the pricing settings in
-- force, to the millionth of a dollar.
create or replace function public.sdk_cost_per_impression(p_format text, p_pricing public.pricing_settings)
returns numeric
language sql immutable
as $$
  select round(case p_format
                 when 'floating_video' then p_pricing.cpm_floating_video_usd
                 when 'tooltip' then p_pricing.cpm_tooltip_usd
                 when 'sponsored_card' then p_pricing.cpm_sponsored_card_usd
                 else p_pricing.cpm_inline_text_usd
               end / 1000, 6)
$$;
