import type { ComponentProps } from 'react';
import { cn } from './cn';

/**
 * A table that never pushes the page sideways: it scrolls inside its own box (focusable, so a
 * keyboard can scroll it too), and with `stickyActions` its last column, where a row's buttons
 * are, stays pinned to the box's right edge while the rest scrolls under it. Cells are styled
 * here, so a table is plain markup: `<th scope="row">` for a row's name, `className="num"` for
 * figures (right-aligned, tabular digits).
 */
export function Table({ className, label, stickyActions = false, ...props }: ComponentProps<'table'> & { label: string; stickyActions?: boolean }) {
  return (
    <div className="relative w-full overflow-x-auto rounded-lg border bg-card" tabIndex={0} role="region" aria-label={label}>
      <table
        className={cn(
          'w-full border-collapse text-sm',
          '[&_thead]:bg-muted/60 [&_thead_th]:h-10 [&_thead_th]:font-medium [&_thead_th]:text-muted-foreground',
          '[&_th]:px-3 [&_th]:py-2 [&_th]:text-left [&_th]:align-middle [&_th]:whitespace-nowrap [&_tbody_th]:font-medium',
          '[&_td]:px-3 [&_td]:py-2 [&_td]:align-middle [&_td]:whitespace-nowrap',
          '[&_tr]:border-b [&_tbody_tr:last-child]:border-0',
          '[&_.num]:text-right [&_.num]:tabular-nums',
          stickyActions &&
            '[&_tr>*:last-child]:sticky [&_tr>*:last-child]:right-0 [&_tbody_tr>*:last-child]:bg-card [&_thead_tr>*:last-child]:bg-muted [&_tr>*:last-child]:shadow-[inset_1px_0_0_var(--border)]',
          className,
        )}
        {...props}
      />
    </div>
  );
}
