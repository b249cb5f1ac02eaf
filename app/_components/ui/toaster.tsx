'use client';

import { Toaster as Sonner } from 'sonner';

/** Where toasts appear (once per page, in the root layout): short confirmations of what just happened. */
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
