import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password';

describe('password hashes', () => {
  it('verify the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horse ', a)).toBe(false);
  });

  it.each(['', 'plain', 'scrypt$1$1$1$x$y', 'bcrypt$2$8$1$c2FsdA$aGFzaA', 'scrypt$99999999$8$1$c2FsdA$aGFzaA'])(
    'never match a malformed stored hash %j',
    async (stored) => {
      expect(await verifyPassword('anything', stored)).toBe(false);
    },
  );
});
