import type { ComponentProps } from 'react';
import { cn } from './cn';

const control =
  'w-full min-w-0 rounded-md border border-input bg-background px-3 text-base text-foreground shadow-xs placeholder:text-muted-foreground focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-destructive sm:text-sm';

export function Input({ className, ...props }: ComponentProps<'input'>) {
  return <input className={cn(control, 'h-10 py-2 file:mr-3 file:border-0 file:bg-transparent file:font-medium', className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  return <textarea className={cn(control, 'min-h-20 py-2', className)} {...props} />;
}

export function Label({ className, ...props }: ComponentProps<'label'>) {
  return <label className={cn('text-sm font-medium leading-none text-foreground', className)} {...props} />;
}

/** A label, its control and an optional hint, stacked: the layout of every form field. */
export function Field({
  label,
  htmlFor,
  hint,
  hintId,
  children,
  className,
}: {
  label: string;
  htmlFor: string;
  hint?: string;
  hintId?: string;
  children: React.ReactNode;
  className?: string;
}) {
  return (
    <div className={cn('grid gap-1.5', className)}>
      <Label htmlFor={htmlFor}>{label}</Label>
      {children}
      {hint && (
        <p id={hintId} className="text-sm text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}
