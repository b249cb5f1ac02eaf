'use client';

import { Select as Primitive } from 'radix-ui';
import { cn } from './cn';

export interface Option {
  value: string;
  label: string;
}

/** How a closed list looks: the select's and the searchable list's button. */
export const listTrigger =
  'flex h-10 w-full min-w-0 items-center justify-between gap-2 rounded-md border border-input bg-background px-3 text-left text-base text-foreground shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50 aria-invalid:border-destructive data-[placeholder]:text-muted-foreground sm:text-sm';

/** The chevron every closed list shows. */
export function Chevron() {
  return (
    <svg viewBox="0 0 16 16" aria-hidden="true" className="size-4 shrink-0 opacity-60" fill="none" stroke="currentColor" strokeWidth="1.75">
      <path d="M4 6l4 4 4-4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/**
 * The design system's select (Radix Select: a button with role `combobox` that opens a listbox;
 * type to jump, arrows to move; in a form it sends `name=value`). Options are values with the
 * words people read. `id` is what a `<Label htmlFor>` names.
 */
export function Select(props: {
  id: string;
  name: string;
  options: readonly Option[];
  defaultValue?: string;
  value?: string;
  onValueChange?: (value: string) => void;
  placeholder?: string;
  required?: boolean;
  disabled?: boolean;
  className?: string;
  'aria-describedby'?: string;
  'aria-label'?: string;
}) {
  return (
    <Primitive.Root
      name={props.name}
      defaultValue={props.defaultValue || undefined}
      value={props.value}
      onValueChange={props.onValueChange}
      required={props.required}
      disabled={props.disabled}
    >
      <Primitive.Trigger
        id={props.id}
        className={cn(listTrigger, props.className)}
        aria-describedby={props['aria-describedby']}
        aria-label={props['aria-label']}
      >
        <Primitive.Value placeholder={props.placeholder ?? 'Choose one'} />
        <Primitive.Icon asChild>
          <Chevron />
        </Primitive.Icon>
      </Primitive.Trigger>
      <Primitive.Portal>
        <Primitive.Content
          position="popper"
          sideOffset={4}
          className="z-50 max-h-[min(var(--radix-select-content-available-height),20rem)] min-w-[var(--radix-select-trigger-width)] overflow-hidden rounded-md border bg-popover text-popover-foreground shadow-md"
        >
          <Primitive.Viewport className="p-1">
            {props.options.map((o) => (
              <Primitive.Item
                key={o.value}
                value={o.value}
                className="relative flex cursor-default items-center rounded-sm py-1.5 pr-8 pl-2 text-sm outline-none select-none data-[disabled]:opacity-50 data-[highlighted]:bg-accent data-[highlighted]:text-accent-foreground"
              >
                <Primitive.ItemText>{o.label}</Primitive.ItemText>
                <Primitive.ItemIndicator className="absolute right-2">✓</Primitive.ItemIndicator>
              </Primitive.Item>
            ))}
          </Primitive.Viewport>
        </Primitive.Content>
      </Primitive.Portal>
    </Primitive.Root>
  );
}

/**
 * The value a custom list or calendar sends with its form, in an input the browser checks: a
 * required one left empty stops the form (and a confirmation) with the browser's own message,
 * anchored under the control, as a native field would. Invisible and out of the tab order: the
 * control's button is what people and screen readers use.
 */
export function FormValue({ name, value, required }: { name: string; value: string; required?: boolean }) {
  return (
    <input
      name={name}
      value={value}
      required={required}
      onChange={() => {}}
      tabIndex={-1}
      aria-hidden="true"
      className="pointer-events-none absolute bottom-0 left-1/2 size-px opacity-0"
    />
  );
}
