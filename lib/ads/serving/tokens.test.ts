import { describe, expect, it } from 'vitest';
import { signDecisionToken, verifyDecisionToken } from './tokens';

const key = Buffer.alloc(32, 3);
const claims = { decisionId: '6f1c9a52-7a0e-4c55-9a1e-6f2b7c9d0a13', appId: '8b0c6f3e-2d41-4c55-9a1e-6f2b7c9d0a13', expiresAt: 2_000_000_000 };
const now = 1_900_000_000_000;

describe('decision tokens', () => {
  it('verify with the key that signed them, and answer their claims', () => {
    const token = signDecisionToken(key, claims);
    expect(token).toMatch(/^[0-9a-f-]{36}\.[0-9a-f-]{36}\.2000000000\.[A-Za-z0-9_-]{43}$/);
    expect(verifyDecisionToken(key, token, now)).toEqual({ ok: true, claims });
  });

  it('are invalid under another key, with any claim changed, or with another spelling of the signature', () => {
    const token = signDecisionToken(key, claims);
    expect(verifyDecisionToken(Buffer.alloc(32, 4), token, now)).toEqual({ ok: false, reason: 'invalid_token' });
    const [d, a, e, sig] = token.split('.') as [string, string, string, string];
    const changed = [
      [claims.appId, a, e, sig],
      [d, claims.decisionId, e, sig],
      [d, a, '2000000001', sig],
      // The last character carries 2 unused bits: the same bytes, spelled differently.
      [d, a, e, sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A')],
      [d, a, e, sig.slice(0, -1) + (sig.endsWith('Q') ? 'R' : 'Q')],
      [d, a, e, `${sig}=`],
      [d, a, `0${e}`, sig],
      [d, a, e],
      [d.toUpperCase(), a, e, sig],
      // As many characters as a signature, but not as many bytes.
      [d, a, e, `é${sig.slice(1)}`],
    ];
    for (const parts of changed) expect(verifyDecisionToken(key, parts.join('.'), now), parts.join('.')).toMatchObject({ ok: false, reason: 'invalid_token' });
    for (const junk of ['', '....', 'x'.repeat(300), `${token}.x`]) expect(verifyDecisionToken(key, junk, now).ok).toBe(false);
  });

  it('expire at their expiry, still naming their claims', () => {
    const token = signDecisionToken(key, claims);
    expect(verifyDecisionToken(key, token, claims.expiresAt * 1000 - 1).ok).toBe(true);
    expect(verifyDecisionToken(key, token, claims.expiresAt * 1000)).toEqual({ ok: false, reason: 'expired_token', claims });
  });
});
