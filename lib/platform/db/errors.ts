/**
 * Which errors mean the database is unavailable or failing, rather than our own code or schema
 * being wrong, for either engine. A caller that answers "the data is unavailable" (a 502, a
 * retry) for these must let every other error through: a TypeError in a view is a bug, and
 * hiding it behind "try again" hides it.
 *
 * A server error counts by the class of its SQLSTATE, its first two characters (the class table
 * of the PostgreSQL documentation, "Appendix A. PostgreSQL Error Codes"), and only for the classes
 * where the server, the connection or the moment is at fault: 08 connection exception, 40
 * transaction rollback (serialization failure, deadlock), 53 insufficient resources, 55 object
 * not in prerequisite state (lock_not_available), 57 operator intervention (query_canceled, which
 * includes statement_timeout, admin_shutdown, cannot_connect_now), 58 system error (I/O) and XX
 * internal error. Any other class (42 syntax error or missing privilege, 22 data exception, 23
 * integrity constraint violation, ...) says our statement or schema is wrong: a bug.
 *
 * Recognised, by shape only (no driver is imported, so this stays a pure function):
 * - an error the server sent (an ErrorResponse of the PostgreSQL wire protocol), with a SQLSTATE
 *   of one of those classes: a five-character `code` and a `severity`. postgres.js raises these
 *   as `PostgresError`, PGlite as its `DatabaseError` (whose class name is minified, hence no
 *   check on names);
 * - a SQLSTATE of class 08 or 57 without a severity: postgres.js raises `57014` itself when it
 *   cancels a query;
 * - postgres.js's own connection failures (`CONNECTION_CLOSED`, `CONNECTION_ENDED`,
 *   `CONNECTION_DESTROYED`, `CONNECT_TIMEOUT`) and a failed SCRAM server signature;
 * - the socket errors of Node's net, dns and tls modules that postgres.js passes on as they are;
 * - PGlite's refusal to run on a closed or closing instance (a plain Error, known by its message).
 */

/** SQLSTATE: two characters of class, three of subclass, digits and upper-case letters. */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Classes of a server error that mean the database is unavailable or failing, not that a statement is wrong. */
const UNAVAILABLE_CLASSES = new Set(['08', '40', '53', '55', '57', '58', 'XX']);

/** Classes a driver raises itself, without a severity, for a lost connection or a cancelled query. */
const DRIVER_CLASSES = new Set(['08', '57']);

const DRIVER_CODES = new Set([
  // postgres.js (src/connection.js, src/index.js)
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'SASL_SIGNATURE_MISMATCH',
  // Node's net and dns modules
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Node's tls module, when the server's certificate cannot be verified
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
]);

const PGLITE_UNAVAILABLE = new Set(['PGlite is closed', 'PGlite is closing']);

export function isDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, severity } = err as Error & { code?: unknown; severity?: unknown };
  if (typeof code === 'string') {
    // Checked first: some of Node's errno codes (EPIPE) have the shape of a SQLSTATE too.
    if (DRIVER_CODES.has(code)) return true;
    if (SQLSTATE.test(code)) return (typeof severity === 'string' ? UNAVAILABLE_CLASSES : DRIVER_CLASSES).has(code.slice(0, 2));
  }
  return code === undefined && PGLITE_UNAVAILABLE.has(err.message);
}

/**
 * The constraint a statement broke (SQLSTATE class 23, integrity constraint violation), by name,
 * or undefined for any other error. postgres.js names it `constraint_name`, PGlite `constraint`.
 */
export function violatedConstraint(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const { code, constraint, constraint_name: constraintName } = err as Error & { code?: unknown; constraint?: unknown; constraint_name?: unknown };
  if (typeof code !== 'string' || !code.startsWith('23')) return undefined;
  const name = constraintName ?? constraint;
  return typeof name === 'string' ? name : undefined;
}
