'use client';

import { Checkbox as Primitive } from 'radix-ui';
import type { ComponentProps } from 'react';
import { cn } from './cn';

/**
 * The design system's checkbox (Radix Checkbox: a button with role `checkbox`, Space toggles it;
 * in a form it sends `name=value` when checked, as a native one does). Put it inside its
 * `<label>`, or give it an `id` a label names.
 */
export function Checkbox({ className, ...props }: ComponentProps<typeof Primitive.Root>) {
  return (
    <Primitive.Root
      className={cn(
        'peer mt-0.5 grid size-4 shrink-0 place-items-center rounded-[4px] border border-input bg-background shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-destructive data-[state=checked]:border-primary data-[state=checked]:bg-primary data-[state=checked]:text-primary-foreground',
        className,
      )}
      {...props}
    >
      <Primitive.Indicator>
        <svg viewBox="0 0 16 16" aria-hidden="true" className="size-3.5" fill="none" stroke="currentColor" strokeWidth="2.5">
          <path d="M3.5 8.5l3 3 6-7" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </Primitive.Indicator>
    </Primitive.Root>
  );
}
