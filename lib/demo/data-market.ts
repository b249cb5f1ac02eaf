import { createHash } from 'node:crypto';
import { z } from 'zod';
import { hashPassword } from '../identity/auth/password';
import { DATA_TERMS_VERSION } from '../data/buyers/schemas';
import type { Statements } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { usdToMicro } from '../platform/kit/micro';
import { mulberry32 } from '../platform/random';
import { newConsentProof, proofHash, storedSubjectId, type SubjectKeys } from '../data/subjects';

/**
 * The demo's consented data and its data buyer (lib/demo/seed.ts calls these), so the catalog has
 * records to count, sample and sell on a fresh install: people of each demo app who agreed to
 * share their AI interactions (and, in two apps, their UX sessions), with records received over
 * the last thirty days, and a demo buyer with a funded balance and one license already bought.
 * Deterministic: the same seed makes the same people and records.
 */

export const DEMO_BUYER_EMAIL = 'buyer@example.com';
export const DEMO_BUYER_FUNDS_USD = 500;

/** What people asked each kind of app, and what it answered. */
const CONVERSATIONS: Record<string, [string, string][]> = {
  writing: [
    ['Suggest a title for a mystery set in Lisbon.', 'The Tiles of Alfama.'],
    ['Shorten this opening line: "It was a dark night and the rain would not stop falling."', 'Rain found the city first.'],
    ['Give my detective a habit that makes her memorable.', 'She folds every receipt into a paper crane while she thinks.'],
    ['What could go wrong in chapter three?', 'The witness recants on the first page, and the only copy of the letter burns.'],
    ['Rewrite this dialogue so it sounds less formal.', '"You coming or what?" "Give me a minute." "You said that an hour ago."'],
    ['Name three villages on a fictional coast.', 'Saltmere, Gullhaven and Lower Brine.'],
  ],
  education: [
    ['Make five questions about photosynthesis for 12-year-olds.', '1. What gas do plants take in? 2. Where does photosynthesis happen? …'],
    ['Explain the difference between weather and climate in one paragraph.', 'Weather is what happens today; climate is what usually happens over decades.'],
    ['Turn this chapter on the French Revolution into a quiz.', 'Q1: In which year was the Bastille stormed? A) 1789 B) 1799 C) 1776'],
    ['Is this answer right: 7 × 8 = 54?', 'Not quite: 7 × 8 = 56.'],
    ['Give me a hint for question 4 without the answer.', 'Think about what happens to water at 100 °C.'],
  ],
  food: [
    ['I have eggs, spinach and feta. What can I cook?', 'A spinach and feta omelette, ready in ten minutes.'],
    ['Plan three dinners without meat for this week.', 'Lentil curry, mushroom risotto and a chickpea tray bake.'],
    ['How long do I roast a 1.5 kg chicken?', 'About 75 minutes at 190 °C, until the juices run clear.'],
    ['Make this recipe for 6 people instead of 4.', 'Multiply each ingredient by 1.5: 300 g rice, 3 onions, …'],
    ['What can I use instead of buttermilk?', 'Milk with a tablespoon of lemon juice per cup, left for five minutes.'],
  ],
};
const MODELS = ['small-chat-1', 'large-chat-2', 'local-7b'];
const SCREENS = ['home', 'editor', 'settings', 'results', 'recipe', 'shopping-list'];

/** The row of an insert's `returning id` (a uuid, as text). */
const returnedId = z.object({ id: z.string() });

interface SeededApp {
  appId: string;
  userId: string;
  category: readonly string[];
  /** Whether its people also share UX sessions. */
  sessions: boolean;
}

/** The app's consenting people and their records (ids `seed-<n>`), received over the last thirty days. */
export async function seedConsentedData(tx: Statements, app: SeededApp, keys: SubjectKeys, seed: number): Promise<void> {
  const rng = mulberry32(seed);
  const topic = app.category.includes('education') ? 'education' : app.category.includes('food') ? 'food' : 'writing';
  const purposes = app.sessions ? ['ai_interactions', 'ux_sessions'] : ['ai_interactions'];
  let n = 0;
  for (let person = 0; person < 10; person++) {
    const subject = storedSubjectId(keys, app.appId, createHash('sha256').update(`demo-subject-${app.appId}-${person}`).digest('hex'));
    await tx.query(sql`insert into public.data_subjects (app_id, subject_hash, proof_hash) values (${app.appId}, ${subject}, ${proofHash(newConsentProof())})`);
    const [consent] = await tx.query(
      sql`insert into public.data_consents (app_id, user_id, subject_hash, purposes, policy_version, consented_at)
          values (${app.appId}, ${app.userId}, ${subject}, ${purposes}::text[], '2026-09', now() - interval '31 days') returning id`,
      returnedId,
    );
    const records: { kind: string; id: string; payload: object; daysAgo: number }[] = [];
    const interactions = 4 + Math.floor(rng() * 5);
    for (let i = 0; i < interactions; i++) {
      const [prompt, response] = CONVERSATIONS[topic]![Math.floor(rng() * CONVERSATIONS[topic]!.length)]!;
      const daysAgo = Math.floor(rng() * 30);
      const payload = {
        prompt,
        response,
        model: MODELS[Math.floor(rng() * MODELS.length)]!,
        occurred_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
      };
      records.push({ kind: 'ai_interaction', id: `seed-${++n}`, payload, daysAgo });
    }
    if (app.sessions) {
      for (let i = 0; i < 2; i++) {
        const daysAgo = Math.floor(rng() * 30);
        let t = 0;
        const events = Array.from({ length: 3 + Math.floor(rng() * 6) }, () => {
          t += Math.round(rng() * 200) / 10;
          return { t, type: rng() < 0.6 ? 'view' : 'click', target: `screen#${SCREENS[Math.floor(rng() * SCREENS.length)]}` };
        });
        records.push({
          kind: 'ux_session',
          id: `seed-${++n}`,
          payload: { started_at: new Date(Date.now() - daysAgo * 86_400_000).toISOString(), duration_seconds: Math.ceil(t + 5), events },
          daysAgo,
        });
      }
    }
    for (const r of records) {
      const json = JSON.stringify(r.payload);
      await tx.query(
        sql`insert into public.data_records (app_id, user_id, consent_id, subject_hash, kind, record_id, payload, bytes, received_at)
            values (${app.appId}, ${app.userId}, ${consent!.id}, ${subject}, ${r.kind}, ${r.id}, ${json}::jsonb, octet_length(${json}::text),
                    now() - make_interval(days => ${r.daysAgo}::int, hours => ${person}::int))`,
      );
    }
  }
}

/**
 * The demo data buyer: an account with a buyer profile that accepted the terms in force, a paid
 * top-up of DEMO_BUYER_FUNDS_USD, and a standard license of ten UX-session recordings bought as
 * they would buy it (public.data_license_buy, as themselves), so the publishers whose sessions it
 * holds have earned from it and its export is waiting for the server's first run.
 */
export async function seedDemoBuyer(tx: Statements, password: string): Promise<void> {
  const [user] = await tx.query(
    sql`insert into public.users (email, name, company, role, created_at)
        values (${DEMO_BUYER_EMAIL}, 'Nora Buyer', 'Northwind Research', 'Data lead', now() - interval '60 days') returning id`,
    returnedId,
  );
  const userId = user!.id;
  await tx.query(sql`insert into public.user_credentials (user_id, password_hash) values (${userId}, ${await hashPassword(password)})`);
  await tx.query(
    sql`insert into public.buyer_profiles (user_id, company, intended_use, billing_email, country, terms_version)
        values (${userId}, 'Northwind Research', 'Evaluating writing and cooking assistants with real, consented conversations.', ${DEMO_BUYER_EMAIL}, 'US', ${DATA_TERMS_VERSION})`,
  );
  const [topUp] = await tx.query(
    sql`insert into public.top_ups (user_id, amount_micro, rail, invoice_number, requested_at, account_kind)
        values (${userId}, ${usdToMicro(DEMO_BUYER_FUNDS_USD)}, 'manual', 'INV-DEMO-NORTHWIND', now() - interval '20 days', 'buyer') returning id`,
    returnedId,
  );
  await tx.query(sql`select public.top_up_credit(${topUp!.id}::uuid, 'Demo seed: bank transfer received', null)`);
  await tx.query(
    sql`select set_config('request.jwt.claims', ${JSON.stringify({ sub: userId, role: 'authenticated' })}, true), set_config('role', 'authenticated', true)`,
  );
  const [bought] = await tx.query(
    sql`select public.data_license_buy('ux_sessions', '{}', null, null, '{}', 10, false, 500000) as answer`,
    // public.data_license_buy's answer: the license bought, or the code of its refusal.
    z.object({ answer: z.object({ ok: z.boolean(), error: z.string().optional() }) }),
  );
  await tx.query(sql`select set_config('request.jwt.claims', '', true), set_config('role', 'service_role', true)`);
  if (!bought?.answer.ok) throw new Error(`the demo buyer's license was refused: ${bought?.answer.error}`);
}
