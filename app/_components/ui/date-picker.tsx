'use client';

import { Popover } from 'radix-ui';
import { useState } from 'react';
import { DayPicker } from 'react-day-picker';
import 'react-day-picker/style.css';
import { cn } from './cn';
import { FormValue } from './select';

/** A calendar day (YYYY-MM-DD) as a Date at local midnight, and back: a day, never an instant. */
function toDate(day: string | undefined): Date | undefined {
  const m = day ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(day) : null;
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
}
function toDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}
const shown = new Intl.DateTimeFormat('en-US', { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });

/**
 * The design system's date control: a button saying the day chosen, opening a calendar
 * (react-day-picker: arrows move by day, Page Up/Down by month, Enter chooses) in a popover;
 * `FormValue` sends `name=YYYY-MM-DD` with the form, and stops it when a required day is missing. An optional one can be cleared. The day is
 * a calendar day, read in no time zone: the label says which zone the form means.
 */
export function DatePicker(props: {
  id: string;
  name: string;
  defaultValue?: string;
  required?: boolean;
  /** Said when no day is chosen (an optional date: what none means). */
  placeholder?: string;
  className?: string;
  'aria-describedby'?: string;
}) {
  const [day, setDay] = useState(props.defaultValue ?? '');
  const [open, setOpen] = useState(false);
  const date = toDate(day);
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <div className={cn('relative flex min-w-0 gap-2', props.className)}>
        <FormValue name={props.name} value={day} required={props.required} />
        <Popover.Trigger
          id={props.id}
          type="button"
          aria-describedby={props['aria-describedby']}
          className="flex h-10 w-full min-w-0 items-center justify-between gap-2 rounded-md border border-input bg-background px-3 text-left text-base text-foreground shadow-xs focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring sm:text-sm"
        >
          <span className={cn('truncate', !date && 'text-muted-foreground')}>{date ? shown.format(date) : (props.placeholder ?? 'Choose a day')}</span>
          <svg viewBox="0 0 16 16" aria-hidden="true" className="size-4 shrink-0 opacity-60" fill="none" stroke="currentColor" strokeWidth="1.5">
            <rect x="2.5" y="3.5" width="11" height="10" rx="1.5" />
            <path d="M2.5 6.5h11M5.5 2v3M10.5 2v3" strokeLinecap="round" />
          </svg>
        </Popover.Trigger>
        {!props.required && day && (
          <button
            type="button"
            onClick={() => setDay('')}
            className="shrink-0 rounded-md px-2 text-sm text-muted-foreground underline hover:text-foreground"
            aria-label={`Clear ${props.placeholder ? `(${props.placeholder})` : 'the day'}`}
          >
            Clear
          </button>
        )}
      </div>
      <Popover.Portal>
        <Popover.Content align="start" sideOffset={4} className="z-50 rounded-md border bg-popover p-2 text-popover-foreground shadow-md">
          <DayPicker
            mode="single"
            selected={date}
            defaultMonth={date}
            required={props.required}
            autoFocus
            onSelect={(d?: Date) => {
              if (d) setDay(toDay(d));
              setOpen(false);
            }}
            className="text-sm [--rdp-accent-background-color:var(--accent)] [--rdp-accent-color:var(--primary)] [--rdp-day-height:2.25rem] [--rdp-day-width:2.25rem] [--rdp-day_button-height:2.1rem] [--rdp-day_button-width:2.1rem]"
          />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
