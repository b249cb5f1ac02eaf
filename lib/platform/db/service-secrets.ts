import type { Engine } from './engine';
import { asService } from './service';

/**
 * A secret the service generates for itself and keeps in `service_secrets`, so every instance
 * sharing the database (and every restart) agrees on it. Two instances racing to create it
 * agree on whichever insert won.
 */
export async function serviceSecret(name: string, make: () => Promise<string> | string, engine: Engine): Promise<string> {
  const candidate = await make();
  return asService(engine, async (db) => {
    await db.query('insert into public.service_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [name, candidate]);
    const [row] = await db.query<{ value: string }>('select value from public.service_secrets where name = $1', [name]);
    return row!.value;
  });
}
