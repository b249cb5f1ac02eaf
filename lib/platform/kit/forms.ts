import type { z } from 'zod';

/**
 * The consoles' forms toolkit: a form's text fields, parsed through the zod schema the rest of
 * the service validates with, to the state the form shows next (a message and the fields as
 * typed, never a secret, so that nothing is lost; or what succeeded). Every console's forms (the
 * publisher's, the advertiser's, the buyer's, the operator's) use it.
 */

export interface FormState {
  /** What went wrong, in words for the form. */
  error?: string;
  /** The fields as submitted, to fill the form again after an error. */
  values?: Record<string, string>;
  /** What was done. */
  notice?: string;
  /** A key just created: the only time its full value is shown. */
  createdKey?: { name: string; key: string; masked_key: string };
  /** The id of what was created, for the page to go to. */
  id?: string;
}

/** The text fields of a submitted form (React's own `$` fields left out). */
export function fields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === 'string' && !name.startsWith('$')) out[name] = value;
  return out;
}

/** The first problem zod found, as the form shows it. */
export function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'Check the form and try again.';
}

type Parsed<S extends z.ZodType> = { ok: true; data: z.output<S> } | { ok: false; state: FormState };

/** The form's fields through `schema`: the data, or the state that says what is wrong (with the fields as typed). */
export function parse<S extends z.ZodType>(schema: S, form: FormData): Parsed<S> {
  // A server action is a public endpoint: its argument is whatever the caller sent.
  if (!(form instanceof FormData)) return { ok: false, state: { error: 'Send the form.' } };
  const values = fields(form);
  const result = schema.safeParse(values);
  return result.success ? { ok: true, data: result.data } : { ok: false, state: { error: firstIssue(result.error), values } };
}
