import { randomBytes } from 'node:crypto';

/**
 * Where the service keeps files it was given (advertisers' images and videos) or made (data
 * buyers' exports), behind one small interface: a folder on this machine by default
 * (`.data/storage`, beside the embedded database), or any S3-compatible bucket (Supabase Storage
 * in production) through the official AWS SDK client (STORAGE_DRIVER, S3_* in lib/platform/env.ts).
 *
 * Keys are made here, never from what a user sent: 128 random bits and an extension the caller
 * derived from a type it validated (`newObjectKey`). A key is never reused, so what is stored
 * under it never changes, and it may be cached for good.
 */

/** Bytes `start` to `end` of an object, both included (as HTTP's Range counts them); no `end`: to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface StoredObject {
  /** The object's bytes, or the range's when one was asked for. */
  body: Uint8Array | ReadableStream<Uint8Array>;
  /** The content type it was stored with. */
  contentType: string;
  /** The whole object's size in bytes, whatever range was read. */
  size: number;
  /** The bytes `body` holds, both ends included, when a range was asked for. */
  range?: { start: number; end: number };
}

export interface ObjectStorage {
  /** Which kind of store this is (for logs and the docs). */
  readonly driver: 'local' | 's3';
  /** Stores `bytes` under `key` (a key from `newObjectKey`), replacing anything there. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Stores the object `chunks` make, read one at a time as the store takes them (a file larger
   * than memory, such as a data export, is never held whole), and answers its size. The object
   * appears whole or not at all: when `chunks` throws or the store fails, the promise rejects and
   * nothing is stored under `key`.
   */
  putStream(key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<{ bytes: number }>;
  /** The object, or one range of it; null when nothing is stored under `key`. Throws RangeNotSatisfiable for a range that starts past its end. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** Deletes the object; deleting what is not there is no error. */
  delete(key: string): Promise<void>;
  /**
   * Every object stored, in pages as the store gives them (for the sweep of files no table knows,
   * lib/ads/advertisers/files.ts): its key, size, and when it was written.
   */
  list(): AsyncIterable<ListedObject>;
}

/** An object as `list` names it. */
export interface ListedObject {
  key: string;
  size: number;
  /** When it was written (a store keeps the time its write finished or began). */
  modifiedAt: Date;
}

/** A range that starts at or past the object's last byte (HTTP 416). */
export class RangeNotSatisfiable extends Error {
  override readonly name = 'RangeNotSatisfiable';
  constructor(readonly size: number) {
    super(`The range starts past the object's ${size} bytes.`);
  }
}

/** What a key looks like: 22 base64url characters (128 random bits) and a short lowercase extension. */
const KEY = /^[A-Za-z0-9_-]{22}\.[a-z0-9]{1,5}$/;

/** A new key for an object of this extension (`png`, `mp4`, …: derived from a validated type, never from a file's name). */
export function newObjectKey(extension: string): string {
  if (!/^[a-z0-9]{1,5}$/.test(extension)) throw new TypeError(`not an extension: ${extension}`);
  return `${randomBytes(16).toString('base64url')}.${extension}`;
}

/** Whether `key` is one `newObjectKey` could have made (anything else is never looked up). */
export function isObjectKey(key: string): boolean {
  return KEY.test(key);
}

export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible service's endpoint (Supabase's, a test's stand-in); unset: AWS S3. */
  endpoint?: string;
  forcePathStyle: boolean;
  /** Unset: the AWS SDK's own credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}
