// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DownloadButtons } from '@/app/dashboard/data/forms';
import { downloadStartedByScript, type DownloadState } from '@/lib/data/buyers/forms';

/**
 * The license page's download buttons (app/dashboard/data/forms.tsx), rendered in happy-dom with
 * an action standing in for the server's: a click asks for a link and the page follows it, and
 * afterwards both buttons are usable again without a reload. They stayed disabled when the action
 * redirected to the file: a server action's redirect is a navigation, and one to a file never
 * ends. A button is disabled only while its own link is asked for; without script (the server's
 * HTML), the form does not say it has one, and the action redirects instead.
 */

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the download buttons', () => {
  let container: HTMLElement;
  let root: Root;
  let assign: ReturnType<typeof vi.fn<(url: string | URL) => void>>;
  /** What the action was sent, in turn. */
  let sent: Record<string, string>[];
  /** The answers still to give: each click waits for its own. */
  let answers: ((state: DownloadState) => void)[];

  const action = (_: DownloadState, form: FormData): Promise<DownloadState> => {
    sent.push(Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)])));
    return new Promise((resolve) => answers.push(resolve));
  };
  const button = (label: string) => [...container.querySelectorAll('button')].find((b) => b.textContent === label)!;
  const disabled = () => ({ parquet: button('Download Parquet').disabled, jsonl: button('Download JSONL').disabled });
  const click = (label: string) => act(async () => button(label).click());
  const answer = (state: DownloadState) => act(async () => answers.shift()!(state));

  beforeEach(async () => {
    sent = [];
    answers = [];
    assign = vi.fn<(url: string | URL) => void>();
    vi.spyOn(window.location, 'assign').mockImplementation(assign);
    container = document.createElement('div');
    document.body.append(container);
    root = createRoot(container);
    await act(async () => root.render(createElement(DownloadButtons, { action, licenseId: 'license-1' })));
  });
  afterEach(async () => {
    await act(async () => root.unmount());
    container.remove();
    vi.restoreAllMocks();
  });

  it('asks for a link, follows it, and leaves both buttons usable for the next download, as often as asked', async () => {
    expect(disabled()).toEqual({ parquet: false, jsonl: false });

    await click('Download Parquet');
    expect(sent).toEqual([{ license: 'license-1', via: 'script', format: 'parquet' }]);
    // While its link is asked for, only that button waits.
    expect(disabled()).toEqual({ parquet: true, jsonl: false });
    await answer({ url: '/downloads/e-1/parquet?expires=1&sig=a' });
    expect(assign).toHaveBeenCalledTimes(1);
    expect(assign).toHaveBeenLastCalledWith('/downloads/e-1/parquet?expires=1&sig=a');
    expect(disabled()).toEqual({ parquet: false, jsonl: false });

    // Again, then the other file: each click a new link, followed once.
    await click('Download Parquet');
    await answer({ url: '/downloads/e-1/parquet?expires=2&sig=b' });
    await click('Download JSONL');
    expect(disabled()).toEqual({ parquet: false, jsonl: true });
    await answer({ url: '/downloads/e-1/jsonl?expires=3&sig=c' });
    expect(sent.map((s) => s.format)).toEqual(['parquet', 'parquet', 'jsonl']);
    expect(assign.mock.calls).toEqual([
      ['/downloads/e-1/parquet?expires=1&sig=a'],
      ['/downloads/e-1/parquet?expires=2&sig=b'],
      ['/downloads/e-1/jsonl?expires=3&sig=c'],
    ]);
    expect(disabled()).toEqual({ parquet: false, jsonl: false });
  });

  it('says why there is no link, follows nothing, and leaves the buttons usable', async () => {
    await click('Download JSONL');
    await answer({ error: 'The files are not written yet: wait for them, the page says when they are ready.' });
    expect(container.textContent).toContain('The files are not written yet');
    expect(assign).not.toHaveBeenCalled();
    expect(disabled()).toEqual({ parquet: false, jsonl: false });
  });
});

describe('the download form without script', () => {
  it('does not say it has script in the server’s HTML, so the action redirects to the file', () => {
    const html = renderToStaticMarkup(createElement(DownloadButtons, { action: async () => ({}), licenseId: 'license-1' }));
    expect(html).toContain('name="license"');
    expect(html).not.toContain('name="via"');
    expect(html).not.toMatch(/<button[^>]*\sdisabled(=""|\s|>)/);
  });

  it('tells a form sent by the script from one sent without', () => {
    const form = (entries: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(entries)) f.append(k, v);
      return f;
    };
    expect(downloadStartedByScript(form({ license: 'l', format: 'jsonl', via: 'script' }))).toBe(true);
    expect(downloadStartedByScript(form({ license: 'l', format: 'jsonl' }))).toBe(false);
    expect(downloadStartedByScript(form({ license: 'l', format: 'jsonl', via: 'other' }))).toBe(false);
    expect(downloadStartedByScript('via=script' as unknown as FormData)).toBe(false);
  });
});
