// Deliberately empty. Without an instrumentation file here, Turbopack (Next 16.4) picks up the
// repository root's instrumentation.ts, which would open our database in the baseline server.
export function register(): void {}
