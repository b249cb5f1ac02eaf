import { log } from './log';

/**
 * A POST naming a server action this build does not have (a made-up `Next-Action` header, or a
 * page of an older deployment) is answered by Next itself: 400 for an id that is not one, 409
 * with `x-nextjs-action-not-found: 1` for a well-formed id it does not know (its client router
 * reads that and reloads the page). Next also writes the error to the log with its stack, about
 * 400 bytes a request (`console.warn(err)` in next/dist/server/app-render/action-handler.js), so
 * anyone could fill the log at the price of a request. No option of Next turns that off, so the
 * server's console is wrapped at start (instrumentation.ts): these warnings become one line of
 * our log at most every UNKNOWN_ACTION_INTERVAL_MS, counting the requests since the last one,
 * without the id or the stack. Every other warning goes through as it was.
 */

/** The errors Next warns with for an unknown or malformed action id (manifests-singleton.js, action-handler.js). */
const UNKNOWN_ACTION = /^(Failed to find Server Action\b|The Server Reference ID did not match the expected format\.|Invalid Server Actions request\.)/;

export const UNKNOWN_ACTION_INTERVAL_MS = 60_000;

const INSTALLED = Symbol.for('monetize.unknownServerActionsQuiet');

type Warn = (...args: unknown[]) => void;
interface Options {
  now?: () => number;
  /** Where the summary line goes (the server log). */
  report?: (fields: { requests: number; interval_s: number }) => void;
}

/** Wraps `target.warn` (the process's console) once; a second call changes nothing. */
export function quietUnknownServerActions(target: { warn: Warn }, options: Options = {}): void {
  const marked = target as { warn: Warn; [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  const now = options.now ?? Date.now;
  const report = options.report ?? ((fields) => log.warn('server action requests refused: no such action in this build', fields));
  const warn = target.warn.bind(target);
  let lastReport = -Infinity;
  let since = 0;
  target.warn = (...args: unknown[]) => {
    const [first] = args;
    if (!(args.length === 1 && first instanceof Error && UNKNOWN_ACTION.test(first.message))) return warn(...args);
    since++;
    const at = now();
    if (at - lastReport < UNKNOWN_ACTION_INTERVAL_MS) return;
    lastReport = at;
    report({ requests: since, interval_s: UNKNOWN_ACTION_INTERVAL_MS / 1000 });
    since = 0;
  };
}
