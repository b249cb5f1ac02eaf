-- What an impression costs the advertiser, in micro-dollars: the format's CPM / 1000, from the
-- pricing settings in force, to the micro-dollar, a half rounded up. A CPM is kept to the
-- hundredth of a cent (100 micro-dollars: public.staff_pricing_schedule), so its thousandth is
-- whole or ends in tenths of a micro-dollar; integer arithmetic rounds it as round(cpm / 1000, 6)
-- rounded the CPM in dollars (migration 20261214001000_money_in_micro_dollars). CPMs are never
-- negative (the tables' checks), so `(cpm + 500) / 1000` is the half rounded up.
create or replace function public.sdk_cost_per_impression(p_format text, p_pricing public.pricing_settings)
returns bigint
language sql immutable
as $$
  select (case p_format
            when 'floating_video' then p_pricing.cpm_floating_video_micro
            when 'tooltip' then p_pricing.cpm_tooltip_micro
            when 'sponsored_card' then p_pricing.cpm_sponsored_card_micro
            when 'sponsored_follow_up' then p_pricing.cpm_sponsored_follow_up_micro
            else p_pricing.cpm_inline_text_micro
          end + 500) / 1000
$$;
