import type { Evidence, ViewabilityRule } from './types';

/**
 * The Media Rating Council's rule, as a clock: an ad is viewable once at least half of its pixels
 * (30% for ads of 242,500 pixels or more) have been in view of a visible, focused tab for one
 * continuous second, or for video, two continuous seconds of playback. Anything that breaks the
 * condition starts the count again. Pure: the page's state comes in as samples.
 */

/** The page at one moment, as far as one ad is concerned. */
export interface Sample {
  /** The share of the ad's pixels in the viewport, 0 to 1. */
  share: number;
  /** The ad's size in CSS pixels. */
  areaPx: number;
  /** The tab is visible and has focus. */
  visible: boolean;
  /** For video: it is playing. */
  playing?: boolean;
}

/** What the rule asks of an ad of this size: the share of its pixels, for how many seconds. */
export function ruleFor(rule: ViewabilityRule, areaPx: number): { min_visible_share: number; min_seconds: number } {
  return rule.large_ad && areaPx >= rule.large_ad.min_area_px ? rule.large_ad : rule;
}

export class ViewabilityClock {
  private since: number | null = null;
  private lowest = 1;
  private seconds: number;
  private needed: { min_visible_share: number; min_seconds: number } | null = null;

  /** `video`: playback counts, not only presence. */
  constructor(
    private readonly rule: ViewabilityRule,
    private readonly video = false,
  ) {
    this.seconds = rule.min_seconds;
  }

  /** The state at `now` (ms); the evidence once the rule is met, else null. */
  update(now: number, sample: Sample): Evidence | null {
    const needed = ruleFor(this.rule, sample.areaPx);
    const inView = sample.visible && sample.share >= needed.min_visible_share && (!this.video || sample.playing === true);
    // Another rule in force (the ad changed size across 242,500 px) starts the count again.
    if (!inView || (this.since !== null && needed !== this.needed)) this.since = null;
    this.needed = needed;
    this.seconds = needed.min_seconds;
    if (!inView) return null;
    if (this.since === null) {
      this.since = now;
      this.lowest = sample.share;
    } else {
      this.lowest = Math.min(this.lowest, sample.share);
    }
    const seconds = (now - this.since) / 1000;
    if (seconds < this.seconds) return null;
    // Rounded down: the evidence never claims more than was seen.
    // Within what the service takes: a share to 4 decimals, a day, 100 million pixels.
    return {
      visible_share: Math.min(1, Math.floor(this.lowest * 10_000) / 10_000),
      visible_seconds: Math.min(86_400, Math.floor(seconds * 1000) / 1000),
      area_px: Math.min(100_000_000, Math.round(sample.areaPx)),
    };
  }

  /** When the rule will be met if nothing changes, or null while the ad is not in view. */
  dueAt(): number | null {
    return this.since === null ? null : this.since + this.seconds * 1000;
  }
}
