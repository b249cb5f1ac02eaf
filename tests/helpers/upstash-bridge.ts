import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RedisConnection, RespError, type RespArg, type RespValue } from './redis';

/**
 * An Upstash-Redis-REST-compatible bridge in front of a real Redis, for tests only (no Upstash
 * service is reachable from our machines). It implements what
 * @upstash/redis 1.39 sends:
 *
 * - `POST /` with one command as a JSON array (`["evalsha", sha, 2, k1, k2, …]`) answers
 *   `{"result": …}`, or HTTP 400 `{"error": "<Redis error>"}`.
 * - `POST /pipeline` and `POST /multi-exec` with an array of commands answer an array of
 *   `{"result"}` / `{"error"}`, one per command. The client auto-pipelines by default
 *   (`enableAutoPipelining`), so most single calls, `evalsha` included, arrive on /pipeline.
 * - `Authorization: Bearer <token>`, else HTTP 401.
 * - `Upstash-Encoding: base64`, which the client sends by default (`responseEncoding`
 *   defaults to "base64"): every string in the result, at any depth, is base64, except a
 *   top-level "OK", which the client's `decode()` passes through untouched. Numbers and null
 *   stay as they are. A bridge that ignores the header hands the client strings it then
 *   base64-decodes into garbage.
 *
 * Stock Redis 7.0 rejects the `#!lua flags=allow-key-locking` shebang that every
 * @upstash/ratelimit script begins with ("Unexpected flag in script shebang"; the flag is
 * Upstash's own). The bridge removes that line before EVAL / SCRIPT LOAD, and since the
 * ratelimit library calls `evalsha` with the sha1 of the ORIGINAL script (hard-coded in its
 * SCRIPTS table), falling back to `eval` on NOSCRIPT, it maps that sha1 to the sha1 of the
 * script Redis actually holds.
 */

export interface UpstashBridgeOptions {
  redisHost?: string;
  redisPort: number;
  /** The bearer token clients must send. */
  token: string;
}

export interface UpstashBridge {
  /** Base URL for `UPSTASH_REDIS_REST_URL` (http://127.0.0.1:<port>). */
  url: string;
  token: string;
  close(): Promise<void>;
}

type Outcome = { result: unknown } | { error: string };

/** A command as the client sends it: strings and numbers (its serializer JSON-encodes the rest). */
type JsonCommand = [string, ...(string | number | boolean)[]];

function isCommand(value: unknown): value is JsonCommand {
  return Array.isArray(value) && typeof value[0] === 'string' && value.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

const SHEBANG = /^#!lua[^\n]*/;

/**
 * The script without a shebang naming `allow-key-locking`. The newline stays, so line numbers
 * in Lua error messages still match the script the client sent.
 */
function forStockRedis(script: string): string {
  const shebang = SHEBANG.exec(script)?.[0];
  return shebang?.includes('allow-key-locking') ? script.slice(shebang.length) : script;
}

/**
 * Rewrites script commands for stock Redis and remembers sha1(original) → sha1(rewritten),
 * so EVALSHA with the client's sha finds the script once EVAL or SCRIPT LOAD has been seen.
 */
class Scripts {
  private readonly shas = new Map<string, string>();

  private adapt(script: string): string {
    const adapted = forStockRedis(script);
    if (adapted !== script) this.shas.set(sha1(script), sha1(adapted));
    return adapted;
  }

  /** The command to send to Redis, and how to turn Redis's reply into Upstash's. */
  prepare(command: JsonCommand): { args: RespArg[]; reply: (v: RespValue) => RespValue } {
    const args: RespArg[] = command.map((a) => (typeof a === 'string' ? a : String(a)));
    const name = command[0].toLowerCase();
    const first = typeof args[1] === 'string' ? args[1] : undefined;
    if ((name === 'eval' || name === 'eval_ro') && first !== undefined) {
      args[1] = this.adapt(first);
    } else if ((name === 'evalsha' || name === 'evalsha_ro') && first !== undefined) {
      args[1] = this.shas.get(first.toLowerCase()) ?? first;
    } else if (name === 'script' && first?.toLowerCase() === 'load' && typeof args[2] === 'string') {
      const original = args[2];
      args[2] = this.adapt(original);
      // Upstash answers with the sha1 of the script as sent; Redis with that of what it got.
      return { args, reply: (v) => (v instanceof RespError ? v : Buffer.from(sha1(original))) };
    }
    return { args, reply: (v) => v };
  }
}

/** A Redis reply as Upstash's JSON. `top`: the whole result, where "OK" is left plain. */
function toJson(value: RespValue, base64: boolean, top = true): unknown {
  if (value === null || typeof value === 'number') return value;
  if (Buffer.isBuffer(value)) return base64 ? value.toString('base64') : value.toString('utf8');
  if (typeof value === 'string') return base64 && !(top && value === 'OK') ? Buffer.from(value).toString('base64') : value;
  // An error nested inside an array (a Lua script can return one): its text, like a string.
  if (value instanceof RespError) return toJson(value.message, base64, false);
  return value.map((v) => toJson(v, base64, false));
}

function outcome(value: RespValue, base64: boolean): Outcome {
  return value instanceof RespError ? { error: value.message } : { result: toJson(value, base64) };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'ERR the request body is not JSON');
  }
}

export async function startUpstashBridge({ redisHost = '127.0.0.1', redisPort, token }: UpstashBridgeOptions): Promise<UpstashBridge> {
  const scripts = new Scripts();
  let closing = false;

  // One shared connection, opened on first use and again after it drops (Redis restarted).
  let connection: Promise<RedisConnection> | undefined;
  const redis = (): Promise<RedisConnection> => {
    if (closing) return Promise.reject(new Error('the bridge is closing'));
    if (!connection) {
      const attempt: Promise<RedisConnection> = RedisConnection.connect(redisHost, redisPort).then(
        (conn) => {
          void conn.closed.then(() => {
            if (connection === attempt) connection = undefined;
          });
          return conn;
        },
        (err: Error) => {
          if (connection === attempt) connection = undefined;
          throw new HttpError(502, `ERR the bridge cannot reach Redis at ${redisHost}:${redisPort}: ${err.message}`);
        },
      );
      connection = attempt;
    }
    return connection;
  };

  /** Sends the commands in one write and returns Redis's replies. */
  const exchange = async (commands: RespArg[][]): Promise<RespValue[]> => {
    const conn = await redis();
    return conn.send(commands).catch((err: Error) => {
      throw new HttpError(502, `ERR the bridge lost Redis: ${err.message}`);
    });
  };

  const handle = async (req: http.IncomingMessage, base64: boolean): Promise<{ status: number; body: unknown }> => {
    const body = await readJson(req);
    const path = new URL(req.url ?? '/', 'http://bridge').pathname;

    if (path === '/') {
      if (!isCommand(body)) throw new HttpError(400, 'ERR the body must be one command as a JSON array');
      const { args, reply } = scripts.prepare(body);
      const [raw] = await exchange([args]);
      const out = outcome(reply(raw ?? null), base64);
      return { status: 'error' in out ? 400 : 200, body: out };
    }

    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand)) {
        throw new HttpError(400, 'ERR the body must be a non-empty JSON array of commands');
      }
      const prepared = body.map((c) => scripts.prepare(c));
      const args = prepared.map((p) => p.args);
      if (path === '/pipeline') {
        const replies = await exchange(args);
        return { status: 200, body: replies.map((r, i) => outcome(prepared[i]!.reply(r), base64)) };
      }
      // MULTI, the commands, EXEC in one write on the one connection: nothing interleaves.
      const exec = (await exchange([['MULTI'], ...args, ['EXEC']])).at(-1) ?? null;
      if (!Array.isArray(exec)) {
        // EXECABORT (a command was refused while queueing): the transaction did not run.
        throw new HttpError(400, exec instanceof RespError ? exec.message : 'ERR the transaction was aborted');
      }
      return { status: 200, body: exec.map((r, i) => outcome(prepared[i]!.reply(r), base64)) };
    }

    throw new HttpError(404, `ERR no such endpoint: ${path}`);
  };

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) {
      req.resume();
      reply(401, { error: 'Unauthorized' });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      reply(405, { error: 'ERR only POST is supported by this bridge' });
      return;
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    handle(req, base64).then(
      ({ status, body }) => reply(status, body),
      (err: unknown) => (err instanceof HttpError ? reply(err.status, { error: err.message }) : reply(500, { error: `ERR bridge: ${String(err)}` })),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // The client keeps connections alive; close() alone would wait for them to time out.
      server.closeAllConnections();
      await stopped;
      const conn = await connection?.catch(() => undefined);
      await conn?.close();
    },
  };
}
