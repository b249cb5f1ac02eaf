import { env } from './env';

/**
 * The server log: one JSON line per event. Callers pass facts, never secrets: no tokens,
 * keys, passwords or request bodies.
 */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, 'silent'>;

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  let threshold: number = LEVELS.info;
  try {
    threshold = LEVELS[env().LOG_LEVEL];
  } catch {
    // An invalid configuration is reported by whoever parses it; logging goes on at info.
  }
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }, truncated);
  if (level === 'error' || level === 'warn') console.error(line);
  else console.log(line);
}

/** The longest text a log line keeps of one value: a value a client chose cannot grow the log without bound. */
export const MAX_LOGGED_CHARS = 1000;

function truncated(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > MAX_LOGGED_CHARS
    ? `${value.slice(0, MAX_LOGGED_CHARS)}… (${value.length - MAX_LOGGED_CHARS} more characters)`
    : value;
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write('debug', m, f),
  info: (m: string, f?: Record<string, unknown>) => write('info', m, f),
  warn: (m: string, f?: Record<string, unknown>) => write('warn', m, f),
  error: (m: string, f?: Record<string, unknown>) => write('error', m, f),
};

export function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { error: err.name, reason: err.message };
  return { error: String(err) };
}
