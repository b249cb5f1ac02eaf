/**
 * Runs once when the server starts, in each runtime Next compiles it for: Node.js, and the Edge
 * runtime too. Only the Node.js server has a database to open, and everything it needs is
 * Node's, so it is imported inside the check on NEXT_RUNTIME: Next replaces the variable when it
 * compiles this file, and the Edge build drops the whole block, import included. (An early
 * `return` for the other runtime is not enough: the code after it is still compiled for the Edge
 * runtime, and Next warned about its Node.js APIs on every request.)
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    if (process.env.NEXT_PHASE === 'phase-production-build') return;
    // A made-up server action id must not cost a stack trace of log per request.
    const { quietUnknownServerActions } = await import('./lib/platform/unknown-actions');
    quietUnknownServerActions(console);
    // lib/process.ts, not lib/services.ts: in `npm run dev` Next compiles what this imports before
    // the first page, and the services reach nearly all of lib/.
    const { openAtStart } = await import('./lib/process');
    const opened = await openAtStart();
    if (process.env.NODE_ENV === 'production' && opened) {
      // A production server seeds the demo accounts where asked and starts its timers (the
      // traffic roll-up, the export job, the file sweep) as it starts, not at its first request
      // (without a database, that request does both). Next replaces NODE_ENV here too, so
      // `npm run dev` compiles none of this.
      const { startTimers } = await import('./lib/services');
      await startTimers();
    }
  }
}
