/**
 * Runs once when the server starts: opens the database (creating, migrating and, the first
 * time, seeding the embedded one) so the first request does not pay for it.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { services } = await import('./lib/services');
  const { log, describeError } = await import('./lib/platform/log');
  // A database that cannot open now is retried on the first request that needs it; an embedded
  // one that another process has is not, and this server stops, saying which process it is.
  await services()
    .database()
    .catch((err: unknown) => {
      if (err instanceof Error && err.name === 'DataDirInUse') {
        console.error(err.message);
        process.exit(1);
      }
      log.error('database did not open at start', describeError(err));
    });
}
