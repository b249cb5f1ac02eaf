'use client';

import { AlertDialog } from 'radix-ui';
import type { ReactNode } from 'react';
import { Button, type ButtonProps } from './button';

/**
 * An accessible "are you sure?" (Radix AlertDialog: focus moves into it and back, Escape
 * cancels, the page behind is inert) in place of window.confirm. Its confirm button submits the
 * form named by `form` with `name=value`, so the action runs as the form's own submission.
 */

/**
 * Submits the form with `name=value` added. Not a submit button's own default action: the dialog
 * closes, and its button leaves the page, before a browser would act on that click.
 */
function submit(formId: string, name?: string, value?: string) {
  const form = document.getElementById(formId);
  if (!(form instanceof HTMLFormElement)) return;
  const extra = name ? Object.assign(document.createElement('input'), { type: 'hidden', name, value: value ?? '' }) : null;
  if (extra) form.append(extra);
  // The submit event, and with it the form's data, happens within requestSubmit.
  form.requestSubmit();
  extra?.remove();
}
export function ConfirmDialog(props: {
  trigger: ReactNode;
  triggerProps?: ButtonProps;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  form: string;
  name?: string;
  value?: string;
  destructive?: boolean;
}) {
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <Button variant="outline" size="sm" {...props.triggerProps}>
          {props.trigger}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 grid w-[calc(100%-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 gap-4 rounded-xl border bg-popover p-6 text-popover-foreground shadow-lg">
          <AlertDialog.Title className="text-lg font-semibold">{props.title}</AlertDialog.Title>
          <AlertDialog.Description className="text-sm text-muted-foreground">{props.description}</AlertDialog.Description>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline">Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant={props.destructive ? 'destructive' : 'default'} onClick={() => submit(props.form, props.name, props.value)}>
                {props.confirmLabel}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
