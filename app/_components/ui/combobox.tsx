'use client';

import { Popover } from 'radix-ui';
import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { cn } from './cn';
import { Chevron, FormValue, listTrigger, type Option } from './select';

/**
 * A select with a search box, for long lists (about 400 time zones): a button that opens a
 * popover holding a text box and the options that match what is typed (any word of the value or
 * of its words), arrows to move, Enter to choose, Escape to close; `FormValue` sends
 * `name=value` with the form, and stops it when a required one is empty. The WAI-ARIA combobox pattern: the text box owns the listbox and
 * names the active option.
 */
export function Combobox(props: {
  id: string;
  name: string;
  options: readonly Option[];
  defaultValue?: string;
  required?: boolean;
  searchLabel: string;
  className?: string;
  'aria-describedby'?: string;
}) {
  const [value, setValue] = useState(props.defaultValue ?? '');
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const list = useRef<HTMLUListElement>(null);
  const matches = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = props.options.filter((o) => words.every((w) => `${o.value} ${o.label}`.toLowerCase().replaceAll('_', ' ').includes(w.replaceAll('_', ' '))));
    return found.slice(0, 200);
  }, [query, props.options]);
  const chosen = props.options.find((o) => o.value === value);
  const choose = (o: Option) => {
    setValue(o.value);
    setOpen(false);
    setQuery('');
  };
  const move = (to: number) => {
    const next = Math.max(0, Math.min(matches.length - 1, to));
    setActive(next);
    list.current?.children[next]?.scrollIntoView({ block: 'nearest' });
  };
  const keys = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') move(active + 1);
    else if (event.key === 'ArrowUp') move(active - 1);
    else if (event.key === 'Enter' && matches[active]) choose(matches[active]);
    else return;
    event.preventDefault();
  };
  return (
    <Popover.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        setActive(
          Math.max(
            0,
            matches.findIndex((m) => m.value === value),
          ),
        );
      }}
    >
      <div className="relative min-w-0">
        <FormValue name={props.name} value={value} required={props.required} />
        <Popover.Trigger id={props.id} type="button" aria-describedby={props['aria-describedby']} className={cn(listTrigger, props.className)}>
          <span className={cn('truncate', !chosen && 'text-muted-foreground')}>{chosen?.label ?? 'Choose one'}</span>
          <Chevron />
        </Popover.Trigger>
      </div>
      <Popover.Portal>
        <Popover.Content
          align="start"
          sideOffset={4}
          className="z-50 grid w-[min(var(--radix-popover-trigger-width),calc(100vw-2rem))] min-w-64 gap-1 rounded-md border bg-popover p-1 text-popover-foreground shadow-md"
        >
          <input
            autoFocus
            role="combobox"
            aria-label={props.searchLabel}
            aria-expanded="true"
            aria-controls={listId}
            aria-activedescendant={matches[active] ? `${listId}-${active}` : undefined}
            aria-autocomplete="list"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={keys}
            placeholder="Type to search"
            className="h-9 w-full rounded-sm border border-input bg-background px-2 text-base outline-none focus-visible:outline-2 focus-visible:outline-ring sm:text-sm"
          />
          <ul ref={list} id={listId} role="listbox" aria-label={props.searchLabel} className="max-h-64 overflow-y-auto">
            {matches.length === 0 && <li className="px-2 py-1.5 text-sm text-muted-foreground">Nothing matches.</li>}
            {matches.map((o, i) => (
              <li
                key={o.value}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={o.value === value}
                onPointerDown={(e) => e.preventDefault()}
                onClick={() => choose(o)}
                onPointerMove={() => setActive(i)}
                className={cn(
                  'cursor-default rounded-sm px-2 py-1.5 text-sm',
                  i === active && 'bg-accent text-accent-foreground',
                  o.value === value && 'font-medium',
                )}
              >
                {o.label}
              </li>
            ))}
          </ul>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
