'use client';

import { useId, useState, type FormEvent } from 'react';
import { Button } from './ui/button';
import { Input } from './ui/input';

interface Result {
  title: string;
  url: string;
  snippet: string;
}

/** The site's search box: asks GET /api/v1/search and lists the pages it finds. */
export function SearchBox() {
  const id = useId();
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<Result[] | null>(null);
  const [status, setStatus] = useState('');

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const q = query.trim();
    if (!q) return;
    setStatus('Searching…');
    try {
      const res = await fetch(`/api/v1/search?${new URLSearchParams({ q, limit: '8' })}`);
      const body = await res.json();
      if (!res.ok) {
        setResults(null);
        setStatus(body?.error?.message ?? 'The search failed.');
        return;
      }
      setResults(body.results);
      setStatus(body.count === 0 ? 'No pages match.' : `${body.count} ${body.count === 1 ? 'page matches' : 'pages match'}.`);
    } catch {
      setStatus('The search failed; try again.');
    }
  }

  return (
    <search className="relative">
      <form onSubmit={onSubmit} role="search" aria-label="Docs" className="flex items-center gap-2">
        <label htmlFor={id} className="sr-only">
          Search the docs
        </label>
        <Input
          id={id}
          type="search"
          value={query}
          maxLength={200}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Search the docs"
          className="h-9 w-full xl:w-56"
        />
        <Button type="submit" variant="outline" size="sm">
          Search
        </Button>
      </form>
      <p aria-live="polite" className="sr-only">
        {status}
      </p>
      {(results || status) && status !== 'Searching…' && (
        <div className="absolute right-0 z-50 mt-2 w-[min(28rem,calc(100vw-2rem))] rounded-xl border bg-popover p-3 text-popover-foreground shadow-lg">
          <p className="px-1 text-xs text-muted-foreground" aria-hidden="true">
            {status}
          </p>
          {results && results.length > 0 && (
            <ol className="search-results mt-1 grid gap-1">
              {results.map((r) => (
                <li key={r.url} className="rounded-md px-2 py-1.5 hover:bg-accent">
                  <a href={new URL(r.url).pathname} className="font-medium">
                    {r.title}
                  </a>
                  <p className="mt-0.5 line-clamp-2 text-xs text-muted-foreground">{r.snippet}</p>
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </search>
  );
}
