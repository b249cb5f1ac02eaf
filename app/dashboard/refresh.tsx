'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/**
 * Re-renders the page from the server every `everyMs` while the tab is visible: what the
 * console's first-run checklist uses to notice the first impression (counted by the roll-up,
 * every few seconds) without the publisher reloading.
 */
export function RefreshWhileWaiting({ everyMs }: { everyMs: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, everyMs);
    return () => clearInterval(timer);
  }, [router, everyMs]);
  return null;
}
