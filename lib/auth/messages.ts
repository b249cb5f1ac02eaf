/** Sign-in error codes (next-auth passes them in `?error=`) and what the page says for each. */
export const SIGN_IN_ERRORS: Record<string, string> = {
  CredentialsSignin: 'The email or password is not right.',
  TooManyAttempts: 'Too many sign-in attempts. Wait 15 minutes, then try again.',
  IdentityRefused: 'That account could not be used to sign in here.',
  OAuthAccountNotLinked: 'That email address belongs to an account that signs in another way.',
};

export function signInErrorMessage(code: string | undefined): string | null {
  if (!code) return null;
  return SIGN_IN_ERRORS[code] ?? 'Signing in did not work. Try again.';
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
