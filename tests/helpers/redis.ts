import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real Redis for integration tests, and a tiny RESP2 client to talk to it (no dependency).
 * The client is what the Upstash bridge (upstash-bridge.ts) forwards commands through.
 */

// ---------------------------------------------------------------------------------------------
// RESP2 client
// ---------------------------------------------------------------------------------------------

/** An error reply (`-ERR …`, `-NOSCRIPT …`): a value, since EXEC returns them inside arrays. */
export class RespError extends Error {
  override name = 'RespError';
}

/**
 * A reply: simple strings (`+OK`) as `string`, bulk strings as `Buffer` (binary-safe; the
 * bridge needs the distinction to encode them as Upstash does), integers as `number`, nil as `null`.
 */
export type RespValue = string | Buffer | number | null | RespError | RespValue[];

export type RespArg = string | number | Buffer;

const CRLF = Buffer.from('\r\n');

function encodeCommand(args: readonly RespArg[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Parses the reply starting at `pos`; undefined while the buffer does not hold all of it. */
function parseReply(buf: Buffer, pos: number): [RespValue, number] | undefined {
  if (pos >= buf.length) return undefined;
  const eol = buf.indexOf(CRLF, pos);
  if (eol < 0) return undefined;
  const type = buf[pos];
  const line = buf.toString('utf8', pos + 1, eol);
  const next = eol + 2;
  switch (type) {
    case 0x2b: // '+'
      return [line, next];
    case 0x2d: // '-'
      return [new RespError(line), next];
    case 0x3a: // ':'
      return [Number(line), next];
    case 0x24: {
      // '$'
      const length = Number(line);
      if (length < 0) return [null, next];
      if (buf.length < next + length + 2) return undefined;
      return [Buffer.from(buf.subarray(next, next + length)), next + length + 2];
    }
    case 0x2a: {
      // '*'
      const count = Number(line);
      if (count < 0) return [null, next];
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, at);
        if (!item) return undefined;
        items.push(item[0]);
        at = item[1];
      }
      return [items, at];
    }
    default:
      throw new Error(`unexpected RESP type byte 0x${type?.toString(16)}`);
  }
}

interface Waiter {
  resolve(value: RespValue): void;
  reject(err: Error): void;
}

/**
 * One connection; replies come back in the order commands were written, so a FIFO of waiters
 * is all the bookkeeping needed. `send` writes a whole batch at once, so nothing another
 * caller sends can land between its commands (MULTI … EXEC relies on it).
 */
export class RedisConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: Waiter[] = [];
  private failure: Error | undefined;
  /** Settles when the socket is gone, for whatever reason. */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.fail(new Error('the connection to Redis closed'));
        resolve();
      }),
    );
  }

  static connect(host: string, port: number, timeoutMs = 2000): Promise<RedisConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection({ host, port });
      const timer = setTimeout(() => socket.destroy(new Error(`no answer from Redis at ${host}:${port}`)), timeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(new RedisConnection(socket));
      });
    });
  }

  get open(): boolean {
    return this.failure === undefined;
  }

  /** Sends the commands in one write; resolves with their replies, error replies included. */
  send(commands: readonly (readonly RespArg[])[]): Promise<RespValue[]> {
    if (this.failure) return Promise.reject(this.failure);
    const replies = commands.map(() => new Promise<RespValue>((resolve, reject) => this.waiting.push({ resolve, reject })));
    this.socket.write(Buffer.concat(commands.map(encodeCommand)));
    return Promise.all(replies);
  }

  async command(...args: RespArg[]): Promise<RespValue> {
    const [reply] = await this.send([args]);
    return reply ?? null;
  }

  async close(): Promise<void> {
    this.socket.destroy();
    await this.closed;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      let parsed: [RespValue, number] | undefined;
      try {
        parsed = parseReply(this.buffer, pos);
      } catch (err) {
        this.socket.destroy(err as Error);
        return;
      }
      if (!parsed) break;
      pos = parsed[1];
      this.waiting.shift()?.resolve(parsed[0]);
    }
    this.buffer = this.buffer.subarray(pos);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}

// ---------------------------------------------------------------------------------------------
// Finding (or starting) a Redis
// ---------------------------------------------------------------------------------------------

export interface RedisServer {
  host: string;
  port: number;
  /** Stops the server if this helper started it; leaves a server it merely found alone. */
  stop(): Promise<void>;
}

async function answersPing(host: string, port: number): Promise<boolean> {
  let conn: RedisConnection | undefined;
  try {
    conn = await RedisConnection.connect(host, port, 500);
    // A Redis that wants AUTH answers -NOAUTH: not one the tests can use.
    return (await conn.command('PING')) === 'PONG';
  } catch {
    return false;
  } finally {
    await conn?.close();
  }
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A Redis answering PING on 127.0.0.1:6379 if there is one; otherwise a `redis-server` from
 * PATH started on a free port, without persistence; otherwise null (the caller skips).
 * A binary that is present but fails to start is an error, not a reason to skip.
 */
export async function findRedis(): Promise<RedisServer | null> {
  const host = '127.0.0.1';
  if (await answersPing(host, 6379)) return { host, port: 6379, stop: async () => {} };

  const binary = onPath('redis-server');
  if (!binary) return null;

  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', '--dir', tmpdir()], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // redis-server logs to stdout, including why it would not start (e.g. the port was taken).
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Should the test process die without running stop(), the server must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await answersPing(host, port)) return { host, port, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`${binary} did not start on port ${port}: ${output.trim() || 'no output'}`);
}
