import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A buyer's webhook for tests: an https server on 127.0.0.1 with a certificate made for the run
 * (by the `openssl` command, for the address 127.0.0.1), which records every request it gets and
 * answers what the test says. The delivery worker reaches it only when the test passes it a
 * network that allows 127.0.0.1 and trusts this certificate; with the real guard it is refused.
 */

export interface TestCertificate {
  key: string;
  cert: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid two days. */
export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-tls-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '2',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { stdio: 'pipe' },
      );
    } catch (err) {
      throw new Error(`the webhook tests make their receiver's certificate with the openssl command, which failed: ${(err as Error).message}`);
    }
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  /** `https://127.0.0.1:<port>/hooks/<name>` */
  url(name?: string): string;
  port: number;
  received: ReceivedRequest[];
  /** What the next requests are answered, in turn; when none is left, `fallback`. */
  answers: number[];
  fallback: number;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startReceiver(tls: TestCertificate): Promise<Receiver> {
  const receiver = { received: [] as ReceivedRequest[], answers: [] as number[], fallback: 200, delayMs: 0 } as Receiver;
  const server: Server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      receiver.received.push({ method: req.method ?? '', path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = receiver.answers.shift() ?? receiver.fallback;
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status < 300 ? 'ok' : 'not now');
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = (name = 'deletions') => `https://127.0.0.1:${receiver.port}/hooks/${name}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
