'use client';

import dynamic from 'next/dynamic';

/**
 * Where toasts appear (once per page, in the root layout): short confirmations of what just
 * happened. Loaded after the page is interactive, in a chunk of its own: no page needs it to
 * render, and most never show a toast.
 */
const Sonner = dynamic(() => import('sonner').then((m) => m.Toaster), { ssr: false });

export function Toaster() {
  return (
    <Sonner
      position="bottom-right"
      theme="system"
      closeButton
      toastOptions={{ classNames: { toast: 'border bg-popover text-popover-foreground shadow-lg', description: 'text-muted-foreground' } }}
    />
  );
}
