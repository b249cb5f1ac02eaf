import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the S3 calls the S3 store makes (lib/platform/storage/s3.ts), for
 * tests only: PutObject, GetObject (with a `Range`, answering 206 or 416 as S3 does) and
 * DeleteObject, HeadObject for a 416's size, and the multipart upload a stream is stored by
 * (CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload, refusing
 * a part other than the last under S3's 5 MiB), ListObjectsV2 (pages of `max-keys`, at most
 * 1,000, with a continuation token, as the orphan sweep reads the bucket), in path-style addressing
 * (`/<bucket>/<key>`, as Supabase Storage's S3 endpoint takes them), with S3's XML errors.
 * It checks what a real service would refuse: a request not signed with SigV4 by the expected
 * access key, an unknown bucket, and a payload whose `x-amz-content-sha256` does not match.
 * Every request is recorded. Neither Supabase nor AWS is ever called: where this service was
 * built, they cannot be reached.
 */
export interface S3StandInRequest {
  method: string;
  path: string;
  /** The query string (a multipart upload's `uploads`, `uploadId`, `partNumber`). */
  query: URLSearchParams;
  bodyLength: number;
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
  /** The bucket's objects, by key (a test may set `modifiedAt` back in time; unset: when it was stored). */
  objects: Map<string, { body: Buffer; contentType: string; modifiedAt?: Date }>;
  /** Multipart uploads begun and neither completed nor aborted, by upload id. */
  uploads: Map<string, { key: string; contentType: string; parts: Map<number, Buffer> }>;
  requests: S3StandInRequest[];
  /** Requests being answered now, and the most there were at once (a test may reset it). */
  inFlight: number;
  mostInFlight: number;
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

/** An object's or a part's ETag: its MD5, quoted, as S3 makes them for single uploads. */
function etag(body: Buffer): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

export async function startS3StandIn(options: { bucket?: string; region?: string } = {}): Promise<S3StandIn> {
  const bucket = options.bucket ?? 'creatives';
  const region = options.region ?? 'eu-central-1';
  const credentials = { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(20).toString('base64') };
  const objects: S3StandIn['objects'] = new Map();
  const uploads: S3StandIn['uploads'] = new Map();
  const requests: S3StandInRequest[] = [];
  // Filled in once the server listens; the counters of requests in flight are kept on it.
  const standIn = { inFlight: 0, mostInFlight: 0 } as S3StandIn;

  const server: Server = createServer(async (req, res) => {
    standIn.inFlight++;
    standIn.mostInFlight = Math.max(standIn.mostInFlight, standIn.inFlight);
    res.on('close', () => standIn.inFlight--);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = decodeURIComponent(url.pathname);
    const method = req.method ?? '';
    const body = await readBody(req);
    requests.push({
      method,
      path,
      query: url.searchParams,
      bodyLength: body.length,
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
    if (!key && method === 'GET' && url.searchParams.get('list-type') === '2') {
      // Keys in order, after the continuation token (here simply the last key of the page before).
      const after = url.searchParams.get('continuation-token') ?? '';
      const max = Math.min(Number(url.searchParams.get('max-keys') ?? 1000) || 1000, 1000);
      const keys = [...objects.keys()].sort().filter((k) => k > after);
      const page = keys.slice(0, max);
      const truncated = keys.length > page.length;
      const contents = page
        .map((k) => {
          const o = objects.get(k)!;
          return `<Contents><Key>${k}</Key><LastModified>${(o.modifiedAt ?? new Date()).toISOString()}</LastModified><Size>${o.body.length}</Size></Contents>`;
        })
        .join('');
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${bucket}</Name><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${truncated ? `<NextContinuationToken>${page.at(-1)}</NextContinuationToken>` : ''}</ListBucketResult>`,
      );
    }
    if (!key) return xmlError(res, 400, 'InvalidRequest', 'This stand-in answers object requests only.', head);

    const uploadId = url.searchParams.get('uploadId');
    if (method === 'POST' && url.searchParams.has('uploads')) {
      const id = randomBytes(16).toString('hex');
      uploads.set(id, { key, contentType: (req.headers['content-type'] as string | undefined) ?? 'binary/octet-stream', parts: new Map() });
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
      );
    }
    if (uploadId !== null) {
      const upload = uploads.get(uploadId);
      if (!upload || upload.key !== key) return xmlError(res, 404, 'NoSuchUpload', 'The specified multipart upload does not exist.', head);
      if (method === 'PUT') {
        const partNumber = Number(url.searchParams.get('partNumber'));
        if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000)
          return xmlError(res, 400, 'InvalidArgument', 'Part number must be 1 to 10000.');
        if (req.headers['content-encoding']?.includes('aws-chunked')) return xmlError(res, 501, 'NotImplemented', 'aws-chunked uploads are not supported.');
        upload.parts.set(partNumber, body);
        res.writeHead(200, { etag: etag(body) });
        return res.end();
      }
      if (method === 'POST') {
        // The parts the client names, in order, each with the ETag its upload was answered with.
        const named = [...body.toString('utf8').matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => ({
          number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(part!)?.[1]),
          etag: /<ETag>([^<]*)<\/ETag>/.exec(part!)?.[1]?.replaceAll('&quot;', '"'),
        }));
        if (!named.length) return xmlError(res, 400, 'MalformedXML', 'The XML you provided was not well-formed.');
        const bodies: Buffer[] = [];
        for (const [i, { number, etag: tag }] of named.entries()) {
          const part = upload.parts.get(number);
          if (i > 0 && number <= named[i - 1]!.number) return xmlError(res, 400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
          if (!part || tag !== etag(part)) return xmlError(res, 400, 'InvalidPart', 'One or more of the specified parts could not be found.');
          if (i < named.length - 1 && part.length < 5 * 1024 * 1024)
            return xmlError(res, 400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
          bodies.push(part);
        }
        const whole = Buffer.concat(bodies);
        objects.set(key, { body: whole, contentType: upload.contentType, modifiedAt: new Date() });
        uploads.delete(uploadId);
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult><Location>${standIn.endpoint}/${bucket}/${key}</Location><Bucket>${bucket}</Bucket><Key>${key}</Key><ETag>${etag(whole).replaceAll('"', '&quot;')}</ETag></CompleteMultipartUploadResult>`,
        );
      }
      if (method === 'DELETE') {
        uploads.delete(uploadId);
        res.writeHead(204);
        return res.end();
      }
      return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', head);
    }

    if (method === 'PUT') {
      if (req.headers['content-encoding']?.includes('aws-chunked')) return xmlError(res, 501, 'NotImplemented', 'aws-chunked uploads are not supported.');
      const contentType = (req.headers['content-type'] as string | undefined) ?? 'binary/octet-stream';
      objects.set(key, { body, contentType, modifiedAt: new Date() });
      res.writeHead(200, { etag: etag(body) });
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
        etag: etag(object.body),
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
  Object.assign(standIn, {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region,
    credentials,
    objects,
    uploads,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return standIn;
}
