import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A client's redirect endpoint on the loopback interface (RFC 8252 §7.3): records the URL the
 * browser arrives at and answers a small page.
 */
export async function startCallbackServer(): Promise<{ redirectUri: string; arrived: () => Promise<URL>; close: () => Promise<void> }> {
  let resolveArrival: (url: URL) => void;
  const arrival = new Promise<URL>((r) => (resolveArrival = r));
  let server: Server | undefined = undefined;
  server = createServer((req, res) => {
    const port = (server!.address() as AddressInfo).port;
    if (req.url?.startsWith('/callback')) resolveArrival(new URL(req.url, `http://127.0.0.1:${port}`));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Client</title><h1>Back at the client</h1>');
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    arrived: () => arrival,
    close: () =>
      new Promise<void>((r) => {
        server!.closeAllConnections();
        server!.close(() => r());
      }),
  };
}
