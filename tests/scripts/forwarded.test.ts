import { describe, expect, it } from 'vitest';
import { platformHeaders } from '../../scripts/forwarded.mjs';

describe('scripts/forwarded.mjs: the headers our server writes as a platform would', () => {
  it('appends the peer to X-Forwarded-For, after whatever the client sent', () => {
    const headers: Record<string, string | string[] | undefined> = { 'x-forwarded-for': '203.0.113.9' };
    platformHeaders(headers, '127.0.0.1');
    expect(headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    const none: Record<string, string | string[] | undefined> = {};
    platformHeaders(none, '::1');
    expect(none['x-forwarded-for']).toBe('::1');
  });

  it('drops a client’s X-Forwarded-Host, which Next would take as our host in its server-action origin check', () => {
    const headers: Record<string, string | string[] | undefined> = { host: 'localhost:3000', 'x-forwarded-host': 'evil.example' };
    platformHeaders(headers, '127.0.0.1');
    expect(headers).not.toHaveProperty('x-forwarded-host');
    expect(headers.host).toBe('localhost:3000');
  });
});
