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
