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
      share = entry.isIntersecting ? entry.intersectionRatio : 0;
      area = entry.boundingClientRect.width * entry.boundingClientRect.height;
      check();
    },
    // Every 5%: each share a rule asks for is among them, and the lowest share reported over
    // the count is never more than 5 points above what was in view.
    { threshold: Array.from({ length: 21 }, (_, i) => i / 20) },
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
