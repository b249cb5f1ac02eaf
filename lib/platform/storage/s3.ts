import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { RangeNotSatisfiable, type ByteRange, type ListedObject, type ObjectStorage, type S3Settings, type StoredObject } from './object-storage';

/** Multipart upload parts: S3 takes 5 MiB to 5 GiB, and at most 10,000 parts, so 8 MiB parts make objects of up to 78 GiB. */
const PART_BYTES = 8 * 1024 * 1024;
/** Parts in flight at once: two keep the connection busy while the next part is read. */
const UPLOAD_QUEUE = 2;

/**
 * The store in production: a bucket of any S3-compatible service, Supabase Storage among them
 * (its S3 endpoint, region and access keys from its Storage settings; path-style addressing), with
 * the official AWS SDK client. Loaded on first use (lazyS3 in ./index.ts).
 *
 * Checksums are sent and checked only where the S3 API requires them: the SDK's newer default
 * (a CRC32 on every upload) is not something every S3-compatible service accepts, and an object
 * here is checked before it is stored (lib/ads/advertisers/media.ts). Tested against a local stand-in
 * of the calls it makes (tests/helpers/s3-stand-in.ts); never run against Supabase itself from here.
 */
export class S3Storage implements ObjectStorage {
  readonly driver = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    });
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.byteLength }));
  }

  /**
   * A multipart upload (`@aws-sdk/lib-storage`): the stream is cut into parts of PART_BYTES, at
   * most UPLOAD_QUEUE of them sent at once, so what is held is a few parts whatever the object's
   * size; a stream that fits in one part is sent as one PutObject. When the stream throws or a
   * call fails, `Upload` aborts the multipart upload (AbortMultipartUpload, as
   * `leavePartsOnError: false` asks), so the parts sent are dropped and no object appears.
   */
  async putStream(key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<{ bytes: number }> {
    let bytes = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of chunks) {
        bytes += chunk.byteLength;
        yield chunk;
      }
    }
    // A byte stream that reads a chunk only when the upload wants more (highWaterMark: one byte),
    // so the source is never read ahead of the parts being cut and sent.
    const body = Readable.from(counted(), { objectMode: false, highWaterMark: 1 });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType },
      partSize: PART_BYTES,
      queueSize: UPLOAD_QUEUE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      // The source is told to stop too, when the failure was the store's.
      body.destroy();
      throw err;
    }
    return { bytes };
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }),
      );
      if (!answer.Body) return null;
      const contentType = answer.ContentType ?? 'application/octet-stream';
      const body = answer.Body.transformToWebStream() as ReadableStream<Uint8Array>;
      const served = answer.ContentRange ? /^bytes (\d+)-(\d+)\/(\d+)$/.exec(answer.ContentRange) : null;
      if (served) return { body, contentType, size: Number(served[3]), range: { start: Number(served[1]), end: Number(served[2]) } };
      // No Content-Range: the whole object (a service may ignore a range that covers all of it).
      const size = Number(answer.ContentLength ?? 0);
      return range ? { body, contentType, size, range: { start: 0, end: size - 1 } } : { body, contentType, size };
    } catch (err) {
      if (isStatus(err, 404)) return null;
      if (isStatus(err, 416)) throw new RangeNotSatisfiable(await this.size(key));
      throw err;
    }
  }

  /** The object's size, which a 416 names in its Content-Range. */
  private async size(key: string): Promise<number> {
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    return Number(head.ContentLength ?? 0);
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** ListObjectsV2, a page (up to 1,000 keys) at a time, following its continuation token. */
  async *list(): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { key: o.Key, size: Number(o.Size ?? 0), modifiedAt: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

function isStatus(err: unknown, status: number): boolean {
  if (err instanceof S3ServiceException) return err.$metadata.httpStatusCode === status;
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode === status;
}
