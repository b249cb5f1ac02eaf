import type { PlacementFormat } from '../../schemas/account';

/** A creative's fields as a decision reads them (public.sdk_serve_ad) or the console holds them. */
export interface CreativeFields {
  id: string;
  advertiser: string;
  headline: string;
  body: string;
  cta: string;
  image_url: string | null;
  video_url: string | null;
}

/** The `ad` of an ad response: what the SDK draws. */
export interface ServedCreative extends CreativeFields {
  label: 'Sponsored';
  action?: 'ask' | 'visit';
}

/**
 * A creative as an ad response carries it to the SDK: the same fields, labelled, and for a
 * follow-up what its click does (its call to action, creatives_follow_up_action). The served ad
 * (ads.ts) and the console's previews (app/_components/ad-preview.tsx) both build it here, so a
 * preview is drawn from what serving would send.
 */
export function servedCreative(format: PlacementFormat, c: CreativeFields): ServedCreative {
  return {
    ...c,
    label: 'Sponsored',
    ...(format === 'sponsored_follow_up' ? { action: c.cta === 'ask' ? ('ask' as const) : ('visit' as const) } : {}),
  };
}
