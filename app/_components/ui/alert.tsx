import type { ComponentProps } from 'react';
import { cn } from './cn';

const TONES = {
  error: 'border-destructive/40 bg-destructive/10 text-foreground',
  success: 'border-success/40 bg-success/10 text-foreground',
  info: 'border-primary/30 bg-primary/5 text-foreground',
  warning: 'border-warning/50 bg-warning/10 text-foreground',
} as const;

/**
 * A message in the flow of the page: an error (role alert, read out at once) or a notice (role
 * status). Forms show their errors with it, next to what they are about.
 */
export function Alert({ tone = 'info', className, ...props }: ComponentProps<'div'> & { tone?: keyof typeof TONES }) {
  return <div role={tone === 'error' ? 'alert' : 'status'} className={cn('rounded-lg border px-4 py-3 text-sm', TONES[tone], className)} {...props} />;
}
