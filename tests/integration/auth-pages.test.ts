import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import SignInPage from '@/app/signin/page';
import SignUpPage from '@/app/signup/page';
import { SIGN_IN_ERRORS, SIGN_UP_ERRORS } from '@/lib/identity/auth/messages';

/**
 * The sign-in and sign-up pages as the server renders them: `?error=` is a code, and the page
 * shows the message of that code from a fixed table, never the text of the query.
 */

type Search = Record<string, string | string[] | undefined>;
type Page = (props: { searchParams: Promise<Search> }) => Promise<ReactElement>;
const render = async (page: Page, search: Search) => renderToStaticMarkup(await page({ searchParams: Promise.resolve(search) }));
/** The text of the page's alert, or null when it has none. */
const alertOf = (html: string) => /<div role="alert"[^>]*>([^<]*)<\/div>/.exec(html)?.[1] ?? null;

const INJECTED = 'Your account is locked. Call +1 555 0100 to unlock it';

describe.each<[string, Page, Record<string, string>]>([
  ['/signup', SignUpPage, SIGN_UP_ERRORS],
  ['/signin', SignInPage, SIGN_IN_ERRORS],
])('%s?error=', (_path, page, table) => {
  it('never shows text from the query', async () => {
    for (const error of [INJECTED, `${INJECTED}`.repeat(10), 'CredentialsSignin ' + INJECTED, '<b>bold</b>']) {
      const html = await render(page, { error });
      expect(html).not.toContain('555 0100');
      expect(html).not.toContain('bold');
      expect(alertOf(html), error).not.toBeNull();
    }
  });

  it('shows a generic message for an unknown code', async () => {
    const generic = alertOf(await render(page, { error: 'NoSuchCode' }));
    expect(generic).toMatch(/did not work\. Try again\.$/);
  });

  it('shows the message of each known code', async () => {
    for (const [code, message] of Object.entries(table)) {
      expect(alertOf(await render(page, { error: code })), code).toBe(message.replace(/'/g, '&#x27;'));
    }
  });

  it('shows no alert without an error', async () => {
    expect(alertOf(await render(page, {}))).toBeNull();
  });
});

describe('/signin', () => {
  it('no longer answers a sign-up (a new account is signed in at once): ?created=1 says nothing', async () => {
    const html = await render(SignInPage, { created: '1', email: 'someone@example.com' });
    expect(html).not.toContain('Your account is ready');
    expect(html).toContain('value="someone@example.com"');
  });
});
