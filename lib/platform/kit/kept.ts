/** Where a kept answer lives: a closure's variable, or a slot on globalThis. */
export interface Slot<T> {
  get(): Promise<T> | undefined;
  set(value: Promise<T> | undefined): void;
}

/**
 * The first successful answer of `load`, kept in `slot`: callers meanwhile share the attempt in
 * flight, and a failed attempt is dropped, so the next call tries again. (A failure of an attempt
 * that another has already replaced leaves the newer one alone.)
 */
export function keptOnSuccess<T>(slot: Slot<T>, load: () => Promise<T>): Promise<T> {
  const kept = slot.get();
  if (kept) return kept;
  const attempt = load();
  slot.set(attempt);
  attempt.catch(() => {
    if (slot.get() === attempt) slot.set(undefined);
  });
  return attempt;
}

/** `load` as a function that answers its first success, kept in a closure (`keptOnSuccess`). */
export function retrying<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  const slot: Slot<T> = { get: () => kept, set: (value) => (kept = value) };
  return () => keptOnSuccess(slot, load);
}
