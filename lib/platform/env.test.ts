import { describe, expect, it } from 'vitest';
import { parseEnv } from './env';

describe('configuration', () => {
  it('has working defaults', () => {
    const e = parseEnv({});
    expect(e).toMatchObject({ PUBLIC_BASE_URL: 'http://localhost:3000', RATE_LIMIT_MAX: 120, RATE_LIMIT_WINDOW_S: 60, AGENT_REGISTRATION: 'on' });
    expect(e.DATABASE_URL).toBeUndefined();
  });

  it('treats empty strings as unset and trims a trailing slash from PUBLIC_BASE_URL', () => {
    const e = parseEnv({ DATABASE_URL: '', PUBLIC_BASE_URL: 'https://example.com/' });
    expect(e.DATABASE_URL).toBeUndefined();
    expect(e.PUBLIC_BASE_URL).toBe('https://example.com');
  });

  it.each([
    [{ RATE_LIMIT_MAX: '0' }, /RATE_LIMIT_MAX/],
    [{ RATE_LIMIT_MAX: 'many' }, /RATE_LIMIT_MAX/],
    [{ PUBLIC_BASE_URL: 'not a url' }, /PUBLIC_BASE_URL/],
    [{ NEXTAUTH_SECRET: 'short' }, /NEXTAUTH_SECRET/],
    [{ UPSTASH_REDIS_REST_URL: 'https://r.example.com' }, /UPSTASH_REDIS_REST_URL/],
    [{ AGENT_REGISTRATION: 'maybe' }, /AGENT_REGISTRATION/],
  ])('refuses %j with a message naming the variable', (source, message) => {
    expect(() => parseEnv(source)).toThrow(message);
  });
});
