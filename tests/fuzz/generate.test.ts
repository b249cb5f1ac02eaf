import { describe, expect, it } from 'vitest';
import { ROUTES } from '@/lib/schemas/registry';
import { describeRequest, generateRequest, targetsOf, type Fixtures, type Plan } from './generate';
import { Rng, parseSeed } from './rng';

/** The generator is a function of the seed and the index, covers the registry, and makes only requests a client can send. */

const FIXTURES: Fixtures = {
  origin: 'http://localhost:3000',
  tokens: {
    sandbox: 'svc_sandbox',
    full: ['eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJiIn0.c2ln'],
    apiOnly: 'a.b.c',
    mcpOnly: 'd.e.f',
    scoped: ['g.h.i'],
    expired: 'j.k.l',
    foreignSigned: 'm.n.o',
    otherIssuer: 'p.q.r',
    deletedUser: 's.t.u',
    assertion: 'v.w.x',
  },
  sdk: {
    keys: [`pk_live_${'a'.repeat(32)}`],
    placements: ['11111111-1111-4111-8111-111111111111'],
    foreignPlacements: ['22222222-2222-4222-8222-222222222222'],
    revokedKey: `pk_live_${'r'.repeat(32)}`,
    archivedKey: `pk_live_${'z'.repeat(32)}`,
    originKey: { key: `pk_live_${'o'.repeat(32)}`, origin: 'https://allowed.example' },
    decisionTokens: ['d1.app.1790000000.mac'],
    consentedSubjects: ['a'.repeat(64)],
    withdrawnSubject: 'c'.repeat(64),
    consentProofs: { ['a'.repeat(64)]: `cp_${'A'.repeat(43)}`, ['c'.repeat(64)]: `cp_${'C'.repeat(43)}` },
  },
  conversions: { key: `ck_live_${'A'.repeat(32)}`, tag: `ct_${'A'.repeat(24)}`, clickIds: [`00000000-0000-4000-8000-000000000003.${'A'.repeat(22)}`] },
  account: { appIds: ['33333333-3333-4333-8333-333333333333'], placementIds: ['44444444-4444-4444-8444-444444444444'] },
  media: { keys: ['0123456789abcdef0123456789abcdef.png'] },
  downloads: { links: ['/downloads/55555555-5555-4555-8555-555555555555/parquet?expires=1790000000&sig=abc'] },
  cursors: { pages: { limit: 1, cursor: 'eyJvIjoxfQ.mac' }, search: { q: 'api', limit: 1, cursor: 'eyJvIjoxfQ.mac2' } },
  oauth: {
    publicClientId: 'mcl_public',
    confidentialClient: { id: 'mcl_conf', secret: 'secret' },
    redirectUri: 'http://127.0.0.1:8765/callback',
    verifier: 'v'.repeat(43),
    challenge: 'c'.repeat(43),
    sessionCookieName: 'next-auth.session-token',
    sessionCookie: 'next-auth.session-token=abc',
    authorizeQuery: 'response_type=code&client_id=mcl_public',
    csrf: '1790000000.mac',
    codes: ['code1'],
  },
  pages: ['/', '/docs/payouts'],
  stripeSignature: (payload) => `t=1,v1=${payload.length}`,
  cronSecret: 'cron-secret-of-the-generator-test-0123456789',
};

const plan = (seed: number): Plan => ({ seed, targets: targetsOf(ROUTES), fixtures: FIXTURES, defaultBudgetShare: 0.1, defaultBudgetIp: '203.0.113.9' });

describe('the request generator', () => {
  it('makes the same request for the same seed and index, whatever ran before', () => {
    const p = plan(42);
    const later = generateRequest(p, 900);
    for (let i = 0; i < 50; i++) generateRequest(p, i);
    expect(generateRequest(p, 900)).toEqual(later);
    const other = Array.from({ length: 50 }, (_, i) => describeRequest(generateRequest(plan(43), 500 + i)));
    expect(Array.from({ length: 50 }, (_, i) => describeRequest(generateRequest(p, 500 + i)))).not.toEqual(other);
  });

  it('begins with one well-formed request per route and method of the registry', () => {
    const p = plan(1);
    const expected = Object.keys(ROUTES).flatMap((route) => ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => `${m} ${route}`));
    const first = Array.from({ length: p.targets.length }, (_, i) => generateRequest(p, i));
    expect(first.map((r) => r.intent)).toEqual(expected);
    expect(new Set(first.flatMap((r) => r.tags))).toEqual(new Set(['valid']));
  });

  it('makes only requests a client can send, with every family of mutation', () => {
    const p = plan(7);
    const tags = new Set<string>();
    for (let i = p.targets.length; i < p.targets.length + 3000; i++) {
      const r = generateRequest(p, i);
      r.tags.forEach((t) => tags.add(t));
      expect(r.target.startsWith('/'), describeRequest(r)).toBe(true);
      expect(() => new Headers(r.headers), describeRequest(r)).not.toThrow();
      if (r.method === 'GET' || r.method === 'HEAD') expect(r.body).toBeUndefined();
    }
    expect([...tags].sort()).toEqual(['body', 'credential', 'cursor', 'header', 'method', 'path', 'query', 'semantic', 'valid']);
  });
});

describe('the seeded PRNG', () => {
  it('is a function of its seed, and reads FUZZ_SEED in decimal or hex', () => {
    const a = new Rng(5);
    const b = new Rng(5);
    expect(Array.from({ length: 5 }, () => a.float())).toEqual(Array.from({ length: 5 }, () => b.float()));
    expect(parseSeed('0x10', 1)).toBe(16);
    expect(parseSeed('17', 1)).toBe(17);
    expect(parseSeed(undefined, 9)).toBe(9);
    expect(() => parseSeed('seed', 1)).toThrow(/FUZZ_SEED/);
  });
});
