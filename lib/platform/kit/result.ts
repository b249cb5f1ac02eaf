/**
 * What a write answers a form or a route: its value, or why it was refused in words the person
 * can act on. Every wing's writes answer this one shape, so one form helper settles them all.
 */
export type Result<T = undefined> = { ok: true; value: T } | { ok: false; error: string };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const refused = (error: string): Result<never> => ({ ok: false, error });
