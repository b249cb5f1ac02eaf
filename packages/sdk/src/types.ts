/** The placement formats, as the console creates them. */
export type Format = 'floating_video' | 'tooltip' | 'sponsored_card' | 'inline_text' | 'sponsored_follow_up';

/** When an impression may be sent: the Media Rating Council's rule for the ad's format. */
export interface ViewabilityRule {
  min_visible_share: number;
  min_seconds: number;
  /** For ads of at least `min_area_px` CSS pixels: a smaller share is enough. */
  large_ad?: { min_visible_share: number; min_seconds: number; min_area_px: number };
}

/** A message of the conversation an ad will sit beside: who wrote it, and its text. */
export interface ContextMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** An ad, as `GET` and `POST /functions/v1/ads` answer it. */
export interface Ad {
  decision_id: string;
  placement_id: string;
  format: Format;
  ad: {
    id: string;
    advertiser: string;
    headline: string;
    body: string;
    cta: string;
    image_url: string | null;
    video_url: string | null;
    label: 'Sponsored';
    /**
     * For `sponsored_follow_up` only: what a click on the suggested question (the headline) does.
     * `ask`: the page asks it in its chat (`RenderOptions.onAsk`); `visit`: it opens the click URL.
     */
    action?: 'ask' | 'visit';
  };
  /** Open it on a click: the service counts the click and redirects to the advertiser. */
  click_url: string;
  /** Names the decision in its events. */
  token: string;
  expires_at: string;
  viewability: ViewabilityRule;
  /** Asked with a conversation: how well the campaign fits it, 0 to 1. */
  relevance?: number;
  /** Asked with a conversation: the advertiser's hints it matched, for "Why this ad?". */
  why?: { matched: string[] };
}

/** What the SDK measured when an ad became viewable; sent with its impression. */
export interface Evidence {
  visible_share: number;
  visible_seconds: number;
  area_px: number;
}

export type EventType = 'filled' | 'no-fill' | 'viewable' | 'clicked' | 'hidden' | 'error';

export interface MonetizeEvent {
  type: EventType;
  placementId: string;
  /** The ad, for `filled`, `viewable`, `clicked` and `hidden`. */
  ad?: Ad;
  /** For `no-fill`: why, as the service's `No-Fill-Reason` says (`sensitive`, `below_relevance`, …). */
  reason?: string;
  /** For `viewable`: what was measured. */
  evidence?: Evidence;
  /** For `error`: what went wrong. Never thrown into the page. */
  error?: unknown;
}

export type Listener = (event: MonetizeEvent) => void;

/** The purposes a user can consent to their data being sold for. */
export type Purpose = 'ai_interactions' | 'ux_sessions';

export interface Consent {
  subject_id: string;
  purposes: Purpose[];
  policy_version: string;
  consented_at: string;
  recorded_at: string;
  /** The user's consent proof, in the answer to `recordConsent` only. */
  consent_proof?: string;
}
