import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { RangeNotSatisfiable, type ByteRange, type ObjectStorage, type S3Settings, type StoredObject } from './object-storage';

/**
 * The store in production: a bucket of any S3-compatible service, Supabase Storage among them
 * (its S3 endpoint, region and access keys from its Storage settings; path-style addressing), with
 * the official AWS SDK client. Loaded on first use (lazyS3 in ./index.ts).
 *
 * Checksums are sent and checked only where the S3 API requires them: the SDK's newer default
 * (a CRC32 on every upload) is not something every S3-compatible service accepts, and an object
 * here is checked before it is stored (lib/advertisers/media.ts). Tested against a local stand-in
 * of the three calls (tests/helpers/s3-stand-in.ts); never run against Supabase itself from here.
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
}

function isStatus(err: unknown, status: number): boolean {
  if (err instanceof S3ServiceException) return err.$metadata.httpStatusCode === status;
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode === status;
}
