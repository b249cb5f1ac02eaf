import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the three S3 calls the S3 store makes (lib/platform/storage/s3.ts), for
 * tests only: PutObject, GetObject (with a `Range`, answering 206 or 416 as S3 does) and
 * DeleteObject, and HeadObject for a 416's size, in path-style addressing
 * (`/<bucket>/<key>`, as Supabase Storage's S3 endpoint takes them), with S3's XML errors.
 * It checks what a real service would refuse: a request not signed with SigV4 by the expected
 * access key, an unknown bucket, and a payload whose `x-amz-content-sha256` does not match.
 * Every request is recorded. Neither Supabase nor AWS is ever called: where this service was
 * built, they cannot be reached.
 */
export interface S3StandInRequest {
  method: string;
  path: string;
  range: string | null;
  contentType: string | null;
  authorization: string | null;
  headers: Record<string, string | string[] | undefined>;
}

export interface S3StandIn {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The bucket's objects, by key. */
  objects: Map<string, { body: Buffer; contentType: string }>;
  requests: S3StandInRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function xmlError(res: ServerResponse, status: number, code: string, message: string, head = false): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': randomBytes(8).toString('hex') });
  res.end(
    head
      ? undefined
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>stand-in</RequestId></Error>`,
  );
}

export async function startS3StandIn(options: { bucket?: string; region?: string } = {}): Promise<S3StandIn> {
  const bucket = options.bucket ?? 'creatives';
  const region = options.region ?? 'eu-central-1';
  const credentials = { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(20).toString('base64') };
  const objects: S3StandIn['objects'] = new Map();
  const requests: S3StandInRequest[] = [];

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = decodeURIComponent(url.pathname);
    const method = req.method ?? '';
    const body = await readBody(req);
    requests.push({
      method,
      path,
      range: (req.headers.range as string | undefined) ?? null,
      contentType: (req.headers['content-type'] as string | undefined) ?? null,
      authorization: req.headers.authorization ?? null,
      headers: { ...req.headers },
    });
    const head = method === 'HEAD';
    // SigV4 by the expected key, for this region and S3.
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/`) || !auth.includes(`/${region}/s3/aws4_request`)) {
      return xmlError(res, 403, 'InvalidAccessKeyId', 'The access key or its scope is not one this stand-in knows.', head);
    }
    const declared = req.headers['x-amz-content-sha256'];
    if (typeof declared !== 'string') return xmlError(res, 400, 'InvalidRequest', 'Missing x-amz-content-sha256.', head);
    if (declared !== 'UNSIGNED-PAYLOAD' && declared !== createHash('sha256').update(body).digest('hex')) {
      return xmlError(res, 400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 does not match what was computed.', head);
    }
    const [, bucketName, ...rest] = path.split('/');
    const key = rest.join('/');
    if (bucketName !== bucket) return xmlError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist.', head);
    if (!key) return xmlError(res, 400, 'InvalidRequest', 'This stand-in answers object requests only.', head);

    if (method === 'PUT') {
      if (req.headers['content-encoding']?.includes('aws-chunked')) return xmlError(res, 501, 'NotImplemented', 'aws-chunked uploads are not supported.');
      const contentType = (req.headers['content-type'] as string | undefined) ?? 'binary/octet-stream';
      objects.set(key, { body, contentType });
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
      return res.end();
    }
    if (method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204);
      return res.end();
    }
    if (method === 'GET' || head) {
      const object = objects.get(key);
      if (!object) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.', head);
      const size = object.body.length;
      const headers: Record<string, string> = {
        'content-type': object.contentType,
        etag: `"${createHash('md5').update(object.body).digest('hex')}"`,
        'last-modified': new Date().toUTCString(),
        'accept-ranges': 'bytes',
      };
      const range = /^bytes=(\d+)-(\d*)$/.exec((req.headers.range as string | undefined) ?? '');
      if (range && !head) {
        const start = Number(range[1]);
        if (start >= size) return xmlError(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
        const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
        const part = object.body.subarray(start, end + 1);
        res.writeHead(206, { ...headers, 'content-length': String(part.length), 'content-range': `bytes ${start}-${end}/${size}` });
        return res.end(part);
      }
      res.writeHead(200, { ...headers, 'content-length': String(size) });
      return res.end(head ? undefined : object.body);
    }
    return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region,
    credentials,
    objects,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
