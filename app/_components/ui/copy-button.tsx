'use client';

import { useState } from 'react';
import { toast } from 'sonner';
import { Button, type ButtonProps } from './button';
import { cn } from './cn';

/** Copies `text` to the clipboard and says so (on the button and in a toast). */
export function CopyButton({ text, label = 'Copy', what, className, ...props }: ButtonProps & { text: string; label?: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="outline"
      size="xs"
      className={cn('min-w-16', className)}
      {...props}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          toast.success(`${what ?? 'Text'} copied to the clipboard`);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          toast.error('The browser did not allow copying: select the text and copy it by hand.');
        }
      }}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}
