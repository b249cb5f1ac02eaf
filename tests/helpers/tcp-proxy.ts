import net from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a server (the test's PostgreSQL), that a test can
 * break the way networks and databases break:
 * - `cut()`: every connection closed and new ones refused, as when PostgreSQL stops;
 * - `stall()`: connections stay open but nothing passes in either direction, and new ones are
 *   accepted and then hang, as in a network partition or a database that stopped answering;
 * - `restore()`: back to passing everything; what a stall held back is delivered.
 */
export class TcpProxy {
  private server = net.createServer((client) => this.accept(client));
  private readonly pairs = new Set<Pair>();
  private stalled = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    await this.listen(0);
    return this;
  }

  /** Every connection closed; new ones refused (nothing listens on the port). */
  async cut(): Promise<void> {
    this.stalled = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const pair of this.pairs) pair.destroy();
    this.pairs.clear();
    await closed;
  }

  /** Nothing passes, either way, on open connections and new ones. */
  stall(): void {
    this.stalled = true;
  }

  /** Passing again: listening if cut, and what a stall held back sent on. */
  async restore(): Promise<void> {
    this.stalled = false;
    if (!this.server.listening) await this.listen(this.port);
    for (const pair of this.pairs) pair.flush();
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.cut();
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const pair = new Pair(client, upstream, () => this.stalled);
    this.pairs.add(pair);
    const forget = () => {
      pair.destroy();
      this.pairs.delete(pair);
    };
    client.on('close', forget).on('error', forget);
    upstream.on('close', forget).on('error', forget);
  }
}

/** One client connection and its connection upstream, forwarding both ways unless stalled. */
class Pair {
  private readonly held: [net.Socket, Buffer][] = [];

  constructor(
    private readonly client: net.Socket,
    private readonly upstream: net.Socket,
    private readonly stalled: () => boolean,
  ) {
    client.on('data', (chunk) => this.pass(upstream, chunk));
    upstream.on('data', (chunk) => this.pass(client, chunk));
  }

  private pass(to: net.Socket, chunk: Buffer): void {
    if (this.stalled()) this.held.push([to, chunk]);
    else to.write(chunk);
  }

  flush(): void {
    for (const [to, chunk] of this.held.splice(0)) if (!to.destroyed) to.write(chunk);
  }

  destroy(): void {
    this.client.destroy();
    this.upstream.destroy();
  }
}
