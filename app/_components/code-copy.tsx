'use client';

import { useEffect } from 'react';
import { toast } from 'sonner';

/**
 * Makes the copy buttons of the rendered markdown on this page work: one listener for all of
 * them (the markdown is HTML we render on the server, not React), shown once it is attached.
 */
export function CodeCopy() {
  useEffect(() => {
    const buttons = [...document.querySelectorAll<HTMLButtonElement>('button[data-copy-code]')];
    for (const b of buttons) {
      b.hidden = false;
      b.setAttribute('aria-label', 'Copy code');
    }
    const onClick = async (event: MouseEvent) => {
      const button = (event.target as Element | null)?.closest<HTMLButtonElement>('button[data-copy-code]');
      const code = button?.parentElement?.querySelector('pre')?.textContent;
      if (!button || code == null) return;
      try {
        await navigator.clipboard.writeText(code.replace(/\n$/, ''));
        button.textContent = 'Copied';
        toast.success('Code copied to the clipboard');
        setTimeout(() => (button.textContent = 'Copy'), 2000);
      } catch {
        toast.error('The browser did not allow copying: select the code and copy it by hand.');
      }
    };
    document.addEventListener('click', onClick);
    return () => document.removeEventListener('click', onClick);
  }, []);
  return null;
}
