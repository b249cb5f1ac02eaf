import type { ReactNode } from 'react';
import { cn } from './cn';
import { CopyButton } from './copy-button';

/** A block of code with its caption and a copy button; it scrolls inside itself on a narrow screen. */
export function CodeBlock({ label, code, children, className }: { label?: string; code: string; children?: ReactNode; className?: string }) {
  return (
    <figure className={cn('my-3 min-w-0 overflow-hidden rounded-lg border bg-muted', className)}>
      <figcaption className="flex items-center justify-between gap-2 border-b bg-background/60 px-3 py-1.5 text-xs font-medium text-muted-foreground">
        <span>{label ?? 'Code'}</span>
        <CopyButton text={code} what={label ?? 'Code'} />
      </figcaption>
      <pre tabIndex={0} className="overflow-x-auto p-3 text-[13px] leading-relaxed">
        <code>{children ?? code}</code>
      </pre>
    </figure>
  );
}
