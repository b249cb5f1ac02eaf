import type { Evidence, ViewabilityRule } from './types';
import { ViewabilityClock } from './viewability';

/**
 * Watches one ad element in the page and calls `onViewable` once, when the ad has met its rule
 * (viewability.ts). The page tells us what changed: an IntersectionObserver for the share in
 * view, `visibilitychange`, `focus` and `blur` for the tab, the video's own events for playback,
 * and a timer for the moment the rule would be met if nothing changes. Answers a function that
 * stops watching.
 */
export function watchViewability(
  element: Element,
  rule: ViewabilityRule,
  video: HTMLVideoElement | null,
  onViewable: (evidence: Evidence) => void,
): () => void {
  const clock = new ViewabilityClock(rule, video !== null);
  let share = 0;
  let area = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const check = (): void => {
    if (stopped) return;
    clearTimeout(timer);
    const now = performance.now();
    const evidence = clock.update(now, {
      share,
      areaPx: area,
      visible: document.visibilityState === 'visible' && document.hasFocus(),
      playing: video ? !video.paused && !video.ended : undefined,
    });
    if (evidence) {
      stop();
      onViewable(evidence);
      return;
    }
    const due = clock.dueAt();
    // A little after the moment: the clock must see the whole time gone by.
    if (due !== null) timer = setTimeout(check, Math.max(0, due - now) + 25);
  };

  const observer = new IntersectionObserver(
    (entries) => {
      const entry = entries[entries.length - 1];
      if (!entry) return;
      const { boundingClientRect: box, intersectionRect: seen } = entry;
      // A browser that lays the ad out at a fractional pixel may clip it to whole pixels, and so
      // report an ad fully in view a hair short of it: less than a pixel short, each way, is
      // all of it (a rule may ask for all of it: `min_visible_share` 1).
      share = !entry.isIntersecting ? 0 : box.width - seen.width < 1 && box.height - seen.height < 1 ? 1 : entry.intersectionRatio;
      area = box.width * box.height;
      check();
    },
    // Every 1%: each share a rule asks for is among them, and what was last reported is never
    // more than a point off what is in view (the lowest share reported over the count, never more
    // than a point above it). For an ad less than 100 px high, such as a follow-up, a point of
    // its height is less than a pixel.
    { threshold: Array.from({ length: 101 }, (_, i) => i / 100) },
  );
  observer.observe(element);

  const sources: [EventTarget, string][] = [
    [document, 'visibilitychange'],
    [window, 'focus'],
    [window, 'blur'],
  ];
  if (video) for (const name of ['playing', 'pause', 'ended', 'waiting']) sources.push([video, name]);
  for (const [target, name] of sources) target.addEventListener(name, check);

  function stop(): void {
    stopped = true;
    clearTimeout(timer);
    observer.disconnect();
    for (const [target, name] of sources) target.removeEventListener(name, check);
  }
  return stop;
}
