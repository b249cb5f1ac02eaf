import { randomBytes } from 'node:crypto';
import { env } from '../env';
import { asService, type Database } from './roles';
import { sql } from './sql';

/**
 * A secret the service generates for itself and keeps in `service_secrets`, so every instance
 * sharing the database (and every restart) agrees on it. Two instances racing to create it
 * agree on whichever insert won.
 */
export async function serviceSecret(name: string, make: () => Promise<string> | string, engine: Database): Promise<string> {
  const candidate = await make();
  const [, [row]] = (await asService(engine).script(
    sql`insert into public.service_secrets (name, value) values (${name}, ${candidate}) on conflict (name) do nothing returning 1`,
    sql`select value from public.service_secrets where name = ${name}`,
  )) as [unknown, { value: string }[]];
  return row!.value;
}

/**
 * The key that encrypts what the database keeps to be read back (lib/platform/crypto.ts, seal):
 * DATA_ENCRYPTION_KEY, or outside production 32 random bytes kept in `service_secrets` (a key
 * beside the data it protects protects nothing, so production refuses to go without the variable,
 * unless it is a demo: SEED_DEMO=true).
 */
export async function dataEncryptionKey(engine: Database): Promise<Buffer> {
  const { DATA_ENCRYPTION_KEY, NODE_ENV, SEED_DEMO } = env();
  if (DATA_ENCRYPTION_KEY) return Buffer.from(DATA_ENCRYPTION_KEY, 'base64url');
  // A production build seeded with the demo accounts (SEED_DEMO=true: tests, demos) holds only
  // demo data, whose details are published anyway.
  if (NODE_ENV === 'production' && SEED_DEMO !== 'true') {
    throw new Error('DATA_ENCRYPTION_KEY is not set: it is required in production (ARCHITECTURE.md, Configuration)');
  }
  return Buffer.from(await serviceSecret('data_encryption_key', () => randomBytes(32).toString('base64url'), engine), 'base64url');
}
