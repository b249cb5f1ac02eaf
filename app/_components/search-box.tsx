'use client';

import { useId, useState, type FormEvent } from 'react';

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
    <search className="search">
      <form onSubmit={onSubmit} role="search" aria-label="Docs">
        <label htmlFor={id}>Search the docs</label>
        <input id={id} type="search" value={query} maxLength={200} onChange={(e) => setQuery(e.target.value)} placeholder="e.g. minimum payout" />
        <button type="submit">Search</button>
      </form>
      <p aria-live="polite" className="search-status">
        {status}
      </p>
      {results && results.length > 0 && (
        <ol className="search-results">
          {results.map((r) => (
            <li key={r.url}>
              <a href={new URL(r.url).pathname}>{r.title}</a>
              <p>{r.snippet}</p>
            </li>
          ))}
        </ol>
      )}
    </search>
  );
}
