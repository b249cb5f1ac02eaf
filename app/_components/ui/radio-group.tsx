'use client';

import { RadioGroup as Primitive } from 'radix-ui';
import type { ComponentProps } from 'react';
import { cn } from './cn';

/**
 * The design system's radio buttons (Radix RadioGroup: arrow keys move between them; in a form
 * the group sends `name=value` of the one chosen). Each item goes inside its `<label>`.
 */
export function RadioGroup({ className, ...props }: ComponentProps<typeof Primitive.Root>) {
  return <Primitive.Root className={cn('grid gap-2', className)} {...props} />;
}

export function RadioItem({ className, ...props }: ComponentProps<typeof Primitive.Item>) {
  return (
    <Primitive.Item
      className={cn(
        'grid size-4 shrink-0 place-items-center rounded-full border border-input bg-background shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50 data-[state=checked]:border-primary',
        className,
      )}
      {...props}
    >
      <Primitive.Indicator className="size-2 rounded-full bg-primary" />
    </Primitive.Item>
  );
}
