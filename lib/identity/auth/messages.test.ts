import { describe, expect, it } from 'vitest';
import { SIGN_IN_ERRORS, SIGN_UP_ERRORS, signInErrorMessage, signUpErrorMessage } from './messages';

describe.each([
  ['signUpErrorMessage', signUpErrorMessage, SIGN_UP_ERRORS, 'Creating the account did not work. Try again.'],
  ['signInErrorMessage', signInErrorMessage, SIGN_IN_ERRORS, 'Signing in did not work. Try again.'],
] as const)('%s', (_, message, table, generic) => {
  it('gives the message of each known code', () => {
    for (const [code, text] of Object.entries(table)) expect(message(code)).toBe(text);
  });

  it('gives nothing without a code', () => {
    expect(message(undefined)).toBeNull();
    expect(message('')).toBeNull();
  });

  it.each([
    'Your account is locked. Call +1 555 0100',
    'An account with this email address already exists. Sign in instead.',
    // Names every object has: they must not be read as codes.
    'constructor',
    'toString',
    '__proto__',
    'hasOwnProperty',
  ])('gives the generic message, never the text itself, for %j', (code) => {
    expect(message(code)).toBe(generic);
  });
});
