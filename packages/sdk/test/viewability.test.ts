import { describe, expect, it } from 'vitest';
import { ruleFor, ViewabilityClock } from '../src/viewability';

const display = { min_visible_share: 0.5, min_seconds: 1, large_ad: { min_visible_share: 0.3, min_seconds: 1, min_area_px: 242_500 } };
const video = { min_visible_share: 0.5, min_seconds: 2 };
const seen = (share: number, areaPx = 300 * 100) => ({ share, areaPx, visible: true });

describe('the viewability clock (MRC)', () => {
  it('counts a display ad half in view for one continuous second, and not a moment before', () => {
    const clock = new ViewabilityClock(display);
    expect(clock.update(0, seen(0.5))).toBeNull();
    expect(clock.dueAt()).toBe(1000);
    expect(clock.update(999, seen(0.8))).toBeNull();
    expect(clock.update(1000, seen(0.8))).toEqual({ visible_share: 0.5, visible_seconds: 1, area_px: 30_000 });
  });

  it('starts again when the ad leaves the view, the tab is hidden or loses focus', () => {
    for (const broken of [seen(0.49), { ...seen(1), visible: false }]) {
      const clock = new ViewabilityClock(display);
      clock.update(0, seen(1));
      expect(clock.update(600, broken)).toBeNull();
      expect(clock.dueAt()).toBeNull();
      expect(clock.update(700, seen(1))).toBeNull();
      expect(clock.update(1600, seen(1))).toBeNull();
      expect(clock.update(1700, seen(1))).toMatchObject({ visible_seconds: 1 });
    }
  });

  it('asks 30% of a large ad (242,500 pixels or more), 50% of a smaller one', () => {
    expect(ruleFor(display, 970 * 250).min_visible_share).toBe(0.3);
    expect(ruleFor(display, 242_499).min_visible_share).toBe(0.5);
    const clock = new ViewabilityClock(display);
    clock.update(0, seen(0.35, 970 * 250));
    expect(clock.update(1000, seen(0.35, 970 * 250))).toEqual({ visible_share: 0.35, visible_seconds: 1, area_px: 242_500 });
    const small = new ViewabilityClock(display);
    small.update(0, seen(0.35));
    expect(small.update(5000, seen(0.35))).toBeNull();
  });

  it("holds a large ad to the large rule's own time", () => {
    const clock = new ViewabilityClock({ ...display, large_ad: { min_visible_share: 0.3, min_seconds: 2, min_area_px: 242_500 } });
    clock.update(0, seen(0.4, 970 * 250));
    expect(clock.dueAt()).toBe(2000);
    expect(clock.update(1500, seen(0.4, 970 * 250))).toBeNull();
    expect(clock.update(2000, seen(0.4, 970 * 250))).toMatchObject({ visible_seconds: 2 });
  });

  it('counts video by two seconds of playback in view', () => {
    const clock = new ViewabilityClock(video, true);
    expect(clock.update(0, { ...seen(1), playing: false })).toBeNull();
    expect(clock.update(500, { ...seen(1), playing: true })).toBeNull();
    expect(clock.update(2000, { ...seen(1), playing: true })).toBeNull();
    // A pause starts the count again.
    clock.update(2100, { ...seen(1), playing: false });
    clock.update(2200, { ...seen(1), playing: true });
    expect(clock.update(4100, { ...seen(1), playing: true })).toBeNull();
    expect(clock.update(4200, { ...seen(1), playing: true })).toMatchObject({ visible_seconds: 2 });
  });

  it('reports the lowest share seen in the period, rounded down, never more than was seen', () => {
    const clock = new ViewabilityClock(display);
    clock.update(0, seen(0.99999));
    clock.update(400, seen(0.61237));
    expect(clock.update(1234.5678, seen(0.9))).toEqual({ visible_share: 0.6123, visible_seconds: 1.234, area_px: 30_000 });
  });

  it('keeps the evidence within what the service takes: 100,000,000 px and 86,400 s at most', () => {
    const huge = new ViewabilityClock(display);
    huge.update(0, seen(1, 20_000 * 20_000));
    expect(huge.update(1000, seen(1, 20_000 * 20_000))).toEqual({ visible_share: 1, visible_seconds: 1, area_px: 100_000_000 });

    // A page that reports nothing for more than a day: the count is longer than the service takes.
    const long = new ViewabilityClock(display);
    long.update(0, seen(1));
    expect(long.update(100_000_000, seen(1))).toEqual({ visible_share: 1, visible_seconds: 86_400, area_px: 30_000 });
    const day = new ViewabilityClock(display);
    day.update(0, seen(1));
    expect(day.update(86_399_000, seen(1))).toMatchObject({ visible_seconds: 86_399 });
  });

  it('starts the count again when the ad changes size across 242,500 px (the large rule gives way to the small one)', () => {
    const clock = new ViewabilityClock(display);
    expect(clock.update(0, seen(0.6, 970 * 250))).toBeNull();
    expect(clock.dueAt()).toBe(1000);
    // At 500 ms the ad shrinks to 300×250, still 60% in view: the small rule counts from now.
    expect(clock.update(500, seen(0.6, 300 * 250))).toBeNull();
    expect(clock.dueAt()).toBe(1500);
    expect(clock.update(1000, seen(0.6, 300 * 250))).toBeNull();
    expect(clock.update(1499, seen(0.6, 300 * 250))).toBeNull();
    expect(clock.update(1500, seen(0.6, 300 * 250))).toEqual({ visible_share: 0.6, visible_seconds: 1, area_px: 75_000 });
  });
});
