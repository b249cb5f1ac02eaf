import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../platform/http/errors';
import { clientCredentials } from './grants';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

/** The OAuthError clientCredentials throws for this form and header. */
function refusal(form: Record<string, string>, authorization: string | null): OAuthError {
  try {
    clientCredentials(form, authorization);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return err as OAuthError;
  }
  throw new Error('clientCredentials accepted the request');
}

describe('clientCredentials: HTTP Basic (RFC 6749 §2.3.1)', () => {
  it('reads the id and secret', () => {
    expect(clientCredentials({ grant_type: 'authorization_code' }, basic('mcl_abc:mcs_secret'))).toEqual({
      clientId: 'mcl_abc',
      secret: 'mcs_secret',
      via: 'basic',
    });
  });

  it.each([
    ['a percent-encoded colon in the secret', 'mcl_abc:se%3Acret', 'mcl_abc', 'se:cret'],
    ['a raw colon in the secret (split on the first one)', 'mcl_abc:se:cret', 'mcl_abc', 'se:cret'],
    ['a plus for a space', 'my+client:a+b', 'my client', 'a b'],
    ['a percent-encoded plus', 'mcl_abc:a%2Bb', 'mcl_abc', 'a+b'],
    ['a percent-encoded colon in the id', 'urn%3Aclient:s', 'urn:client', 's'],
    ['percent-encoded UTF-8', 'mcl_abc:%C3%A9t%C3%A9', 'mcl_abc', 'été'],
    ['an empty secret', 'mcl_abc:', 'mcl_abc', ''],
  ])('form-decodes the id and secret: %s', (_, userPass, clientId, secret) => {
    expect(clientCredentials({}, basic(userPass))).toEqual({ clientId, secret, via: 'basic' });
  });

  it('accepts the scheme name in any case and extra spaces', () => {
    const header = `bASIC   ${Buffer.from('mcl_abc:s').toString('base64')}`;
    expect(clientCredentials({}, header)).toEqual({ clientId: 'mcl_abc', secret: 's', via: 'basic' });
  });

  it('accepts a client_id in the body that equals the Basic one', () => {
    expect(clientCredentials({ client_id: 'mcl_abc' }, basic('mcl_abc:s'))).toEqual({ clientId: 'mcl_abc', secret: 's', via: 'basic' });
  });

  it('refuses Basic together with client_secret in the body as invalid_request', () => {
    const err = refusal({ client_id: 'mcl_abc', client_secret: 's' }, basic('mcl_abc:s'));
    expect(err.code).toBe('invalid_request');
    expect(err.status).toBe(400);
  });

  it('refuses a client_id in the body that differs from the Basic one as invalid_request', () => {
    const err = refusal({ client_id: 'mcl_other' }, basic('mcl_abc:s'));
    expect(err.code).toBe('invalid_request');
    expect(err.status).toBe(400);
  });

  it.each([
    ['no colon', basic('mcl_abc')],
    ['a bad percent-encoding', basic('mcl_abc:%zz')],
  ])('refuses malformed Basic credentials (%s) as invalid_client 401 with a Basic challenge', (_, header) => {
    const err = refusal({}, header);
    expect(err.code).toBe('invalid_client');
    expect(err.status).toBe(401);
    expect(err.headers['WWW-Authenticate']).toMatch(/^Basic /);
  });

  it.each(['Bearer abc.def.ghi', 'Digest username="x"', 'Basic', 'mcl_abc:s'])(
    'refuses the Authorization header %j as invalid_client 401, with the Basic challenge (RFC 6749 §5.2)',
    (header) => {
      const err = refusal({ client_id: 'mcl_abc' }, header);
      expect(err.code).toBe('invalid_client');
      expect(err.status).toBe(401);
      expect(err.headers['WWW-Authenticate']).toMatch(/^Basic realm=/);
    },
  );
});

describe('clientCredentials: the body', () => {
  it('reads client_id and client_secret from the body as client_secret_post', () => {
    expect(clientCredentials({ client_id: 'mcl_abc', client_secret: 's' }, null)).toEqual({ clientId: 'mcl_abc', secret: 's', via: 'post' });
  });

  it('reads a lone client_id as a public client', () => {
    expect(clientCredentials({ client_id: 'mcl_abc' }, null)).toEqual({ clientId: 'mcl_abc', secret: undefined, via: 'none' });
  });

  it('treats an empty Authorization header as none', () => {
    expect(clientCredentials({ client_id: 'mcl_abc' }, '')).toEqual({ clientId: 'mcl_abc', secret: undefined, via: 'none' });
  });

  it('leaves a missing client_id for authenticateClient to refuse', () => {
    expect(clientCredentials({}, null)).toEqual({ clientId: undefined, secret: undefined, via: 'none' });
  });
});
