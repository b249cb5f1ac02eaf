import { describe, expect, it } from 'vitest';
import { s256, verifyPkce } from './pkce';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE with S256', () => {
  it('hashes the verifier of RFC 7636 Appendix B to its challenge', () => {
    expect(s256(VERIFIER)).toBe(CHALLENGE);
    expect(verifyPkce(VERIFIER, CHALLENGE)).toBe(true);
  });

  it('accepts verifiers of 43 and of 128 characters using the whole unreserved alphabet', () => {
    for (const verifier of ['a'.repeat(43), `${'A-._~z9'.repeat(18)}xy`]) {
      expect(verifier.length === 43 || verifier.length === 128).toBe(true);
      expect(verifyPkce(verifier, s256(verifier))).toBe(true);
    }
  });

  it('refuses a verifier that does not hash to the challenge', () => {
    const other = `${VERIFIER.slice(0, -1)}K`;
    expect(other).not.toBe(VERIFIER);
    expect(verifyPkce(other, CHALLENGE)).toBe(false);
    expect(verifyPkce('x'.repeat(43), CHALLENGE)).toBe(false);
  });

  it.each([
    ['too short (42 characters)', 'a'.repeat(42)],
    ['too long (129 characters)', 'a'.repeat(129)],
    ['empty', ''],
    ['with a space', `${'a'.repeat(42)} `],
    ['with a plus', `${'a'.repeat(42)}+`],
    ['with a slash', `${'a'.repeat(42)}/`],
    ['with a non-ASCII letter', `${'a'.repeat(42)}é`],
  ])('refuses a verifier that is %s, even against its own hash', (_, verifier) => {
    expect(verifyPkce(verifier, s256(verifier))).toBe(false);
  });

  it.each([
    ['too short', CHALLENGE.slice(0, -1)],
    ['too long', `${CHALLENGE}A`],
    ['padded base64', `${CHALLENGE}=`],
    ['standard base64 instead of base64url', CHALLENGE.replace('-', '+')],
    ['empty', ''],
    ['the verifier itself (plain)', VERIFIER],
  ])('refuses a malformed challenge: %s', (_, challenge) => {
    expect(verifyPkce(VERIFIER, challenge)).toBe(false);
  });
});
