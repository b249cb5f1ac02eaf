'use client';

import { AlertDialog } from 'radix-ui';
import { useState, type ReactNode } from 'react';
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

/** What the dialog says: fixed, or read from what the form holds when it opens (an amount typed, a reference). */
type Said = ReactNode | ((form: FormData) => ReactNode);

export function ConfirmDialog(props: {
  trigger: ReactNode;
  triggerProps?: ButtonProps;
  title: Said;
  description: Said;
  confirmLabel: Said;
  form: string;
  name?: string;
  value?: string;
  destructive?: boolean;
}) {
  const [data, setData] = useState<FormData | null>(null);
  const say = (s: Said) => (typeof s === 'function' ? s(data ?? new FormData()) : s);
  return (
    <AlertDialog.Root onOpenChange={(open) => !open && setData(null)}>
      <AlertDialog.Trigger asChild>
        <Button
          variant="outline"
          size="sm"
          {...props.triggerProps}
          onClick={(event) => {
            // The form's own checks first (a required reference, a number): the question is
            // asked about what would be sent, and not at all when it could not be.
            const form = document.getElementById(props.form);
            if (!(form instanceof HTMLFormElement)) return;
            if (!form.reportValidity()) {
              event.preventDefault();
              return;
            }
            setData(new FormData(form));
          }}
        >
          {props.trigger}
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <AlertDialog.Content className="fixed top-1/2 left-1/2 z-50 grid w-[calc(100%-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 gap-4 rounded-xl border bg-popover p-6 text-popover-foreground shadow-lg">
          <AlertDialog.Title className="text-lg font-semibold break-words">{say(props.title)}</AlertDialog.Title>
          <AlertDialog.Description className="text-sm break-words text-muted-foreground">{say(props.description)}</AlertDialog.Description>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel asChild>
              <Button variant="outline">Go back</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant={props.destructive ? 'destructive' : 'default'} onClick={() => submit(props.form, props.name, props.value)}>
                {say(props.confirmLabel)}
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
