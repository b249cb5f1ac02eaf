import { MAX_PASSWORD, MIN_PASSWORD } from './users';

/**
 * The messages the sign-in and sign-up pages can show. Their `?error=` carries a code, never
 * text: the page shows the message of a known code, and a generic one for anything else, so a
 * link cannot make our page say what its author wants.
 */

/** Sign-in error codes (next-auth passes them in `?error=`) and what the page says for each. */
export const SIGN_IN_ERRORS: Readonly<Record<string, string>> = {
  CredentialsSignin: 'The email or password is not right.',
  TooManyAttempts: 'Too many sign-in attempts. Wait 15 minutes, then try again.',
  IdentityRefused: 'That account could not be used to sign in here.',
  OAuthAccountNotLinked: 'That email address belongs to an account that signs in another way.',
};

/** Sign-up error codes (the sign-up form sends them in `?error=`) and what the page says for each. */
export const SIGN_UP_ERRORS = {
  InvalidEmail: 'Enter a valid email address.',
  EmailTooLong: 'The email address is too long.',
  PasswordTooShort: `Use at least ${MIN_PASSWORD} characters for the password.`,
  PasswordTooLong: `Use at most ${MAX_PASSWORD} characters for the password.`,
  NameMissing: 'Enter your name.',
  NameTooLong: 'The name is too long (100 characters at most).',
  CompanyTooLong: 'The company name is too long (100 characters at most).',
  EmailTaken: 'That email address already has an account, and this is not its password. Sign in instead, or use another address.',
  TooManyAttempts: 'Too many attempts from here. Wait 15 minutes, then try again.',
} as const satisfies Record<string, string>;
export type SignUpErrorCode = keyof typeof SIGN_UP_ERRORS;

export function isSignUpErrorCode(code: string): code is SignUpErrorCode {
  return Object.hasOwn(SIGN_UP_ERRORS, code);
}

/** The message of a code of `table`; a generic one for any other text (never the text itself). */
function messageOf(table: Readonly<Record<string, string>>, code: string | undefined, generic: string): string | null {
  if (!code) return null;
  // Own keys only: `constructor` or `toString` are not codes.
  return Object.hasOwn(table, code) ? table[code]! : generic;
}

export function signInErrorMessage(code: string | undefined): string | null {
  return messageOf(SIGN_IN_ERRORS, code, 'Signing in did not work. Try again.');
}

export function signUpErrorMessage(code: string | undefined): string | null {
  return messageOf(SIGN_UP_ERRORS, code, 'Creating the account did not work. Try again.');
}

/**
 * A text field of a submitted form, or '' when it is missing or a file. A server action is a
 * public endpoint: its argument may be anything, not only a form.
 */
export function textField(form: unknown, name: string): string {
  const v = form instanceof FormData ? form.get(name) : null;
  return typeof v === 'string' ? v : '';
}

/**
 * Where to go after signing in: only a path on this site, so the sign-in page cannot be used
 * to send someone elsewhere (an open redirect).
 */
export function safeCallbackUrl(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v || !v.startsWith('/') || v.startsWith('//') || v.startsWith('/\\') || /[\u0000-\u001f]/.test(v)) return '/';
  return v;
}
