import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '@/lib/platform/env';
import { isObjectKey, lazyS3, LocalStorage, newObjectKey, objectStorage, RangeNotSatisfiable, type ObjectStorage } from '@/lib/platform/storage';
import { startS3StandIn, type S3StandIn } from '../helpers/s3-stand-in';

/**
 * The object store's contract (lib/platform/storage/), the same for both drivers: the local folder
 * and an S3 bucket through the AWS SDK client, here a local stand-in of S3
 * (tests/helpers/s3-stand-in.ts). Put, put from a stream of chunks (whole or not at all), get
 * (whole, or a range as a video element asks), delete, list (every object, its size and time), nothing
 * for an unknown key, and the content type kept.
 */

async function text(body: Uint8Array | ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body as BodyInit).text();
}

async function bytesOf(body: Uint8Array | ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(body as BodyInit).arrayBuffer());
}

/** The chunks, one at a time; with `failAfter`, the stream throws once that many were read. */
async function* streamOf(chunks: Uint8Array[], failAfter?: number): AsyncGenerator<Uint8Array> {
  for (const [i, chunk] of chunks.entries()) {
    if (i === failAfter) throw new Error('the export failed midway');
    await Promise.resolve();
    yield chunk;
  }
}

/** Lines of varied length, as an export's chunks are. */
function lines(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => new TextEncoder().encode(`{"n":${i},"text":"${'é→'.repeat(i % 40)}"}\n`));
}

let dir: string;
let standIn: S3StandIn;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'monetize-storage-'));
  standIn = await startS3StandIn();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await standIn?.close();
});

const drivers: [string, () => ObjectStorage, () => Promise<number>][] = [
  ['local', () => new LocalStorage(dir), async () => (await readdir(path.join(dir, 'objects')).catch(() => [])).length],
  [
    's3',
    () =>
      lazyS3({
        bucket: standIn.bucket,
        region: standIn.region,
        endpoint: standIn.endpoint,
        forcePathStyle: true,
        credentials: standIn.credentials,
      }),
    async () => standIn.objects.size,
  ],
];

describe.each(drivers)('the %s store', (_, make, count) => {
  it('keeps an object with its content type, reads it whole or by range, and deletes it', async () => {
    const store = make();
    const before = await count();
    const key = newObjectKey('txt');
    await store.put(key, new TextEncoder().encode('0123456789'), 'text/plain');
    expect(await count()).toBe(before + 1);

    const whole = await store.get(key);
    expect(whole).toMatchObject({ contentType: 'text/plain', size: 10 });
    expect(await text(whole!.body)).toBe('0123456789');

    const part = await store.get(key, { start: 2, end: 5 });
    expect(part).toMatchObject({ size: 10, range: { start: 2, end: 5 } });
    expect(await text(part!.body)).toBe('2345');
    const rest = await store.get(key, { start: 7 });
    expect(rest!.range).toEqual({ start: 7, end: 9 });
    expect(await text(rest!.body)).toBe('789');
    const past = await store.get(key, { start: 4, end: 99 });
    expect(past!.range).toEqual({ start: 4, end: 9 });
    await expect(store.get(key, { start: 10 })).rejects.toMatchObject({ name: 'RangeNotSatisfiable', size: 10 });
    await expect(store.get(key, { start: 10 })).rejects.toBeInstanceOf(RangeNotSatisfiable);

    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await count()).toBe(before);
    // Deleting again is no error.
    await store.delete(key);
  });

  it('lists every object with its size and when it was written, and no longer one deleted', async () => {
    const store = make();
    const keys = [newObjectKey('png'), newObjectKey('mp4')];
    const started = Date.now() - 2000;
    await store.put(keys[0]!, new Uint8Array(3), 'image/png');
    await store.put(keys[1]!, new Uint8Array(7), 'video/mp4');
    const listed = new Map<string, { size: number; modifiedAt: Date }>();
    for await (const o of store.list()) listed.set(o.key, o);
    expect(listed.size).toBe(await count());
    expect(listed.get(keys[0]!)).toMatchObject({ size: 3 });
    expect(listed.get(keys[1]!)).toMatchObject({ size: 7 });
    expect(listed.get(keys[1]!)!.modifiedAt.getTime()).toBeGreaterThan(started);
    await store.delete(keys[0]!);
    const after: string[] = [];
    for await (const o of store.list()) after.push(o.key);
    expect(after).not.toContain(keys[0]);
    expect(after).toContain(keys[1]);
    await store.delete(keys[1]!);
  });

  it('answers null for a key never stored', async () => {
    expect(await make().get(newObjectKey('png'))).toBeNull();
  });

  it('stores a stream of chunks whole, with its content type, and answers its size', async () => {
    const store = make();
    const before = await count();
    const chunks = lines(200);
    const whole = Buffer.concat(chunks);
    const key = newObjectKey('jsonl');
    expect(await store.putStream(key, streamOf(chunks), 'application/x-ndjson')).toEqual({ bytes: whole.length });
    expect(await count()).toBe(before + 1);
    const stored = await store.get(key);
    expect(stored).toMatchObject({ contentType: 'application/x-ndjson', size: whole.length });
    expect((await bytesOf(stored!.body)).equals(whole)).toBe(true);
    const part = await store.get(key, { start: 3, end: 9 });
    expect(await text(part!.body)).toBe(whole.subarray(3, 10).toString('utf8'));
    await store.delete(key);
    expect(await count()).toBe(before);
  });

  it('stores an empty stream as an empty object', async () => {
    const store = make();
    const key = newObjectKey('jsonl');
    expect(await store.putStream(key, streamOf([]), 'application/x-ndjson')).toEqual({ bytes: 0 });
    expect(await store.get(key)).toMatchObject({ contentType: 'application/x-ndjson', size: 0 });
    await store.delete(key);
  });

  it('stores nothing under the key when the stream throws midway', async () => {
    const store = make();
    const before = await count();
    const key = newObjectKey('jsonl');
    await expect(store.putStream(key, streamOf(lines(100), 60), 'application/x-ndjson')).rejects.toThrow('the export failed midway');
    expect(await store.get(key)).toBeNull();
    expect(await count()).toBe(before);
  });
});

describe('the local store', () => {
  it('leaves no temporary file behind when a stream fails, and refuses a key that is a path before reading any of it', async () => {
    const store = new LocalStorage(dir);
    await expect(store.putStream(newObjectKey('jsonl'), streamOf(lines(10), 5), 'application/x-ndjson')).rejects.toThrow(/midway/);
    expect(await readdir(path.join(dir, 'tmp'))).toEqual([]);

    let read = 0;
    async function* counted() {
      for (const chunk of lines(3)) {
        read++;
        yield chunk;
      }
    }
    await expect(store.putStream('../escape', counted(), 'text/plain')).rejects.toThrow(/not a storage key/);
    expect(read).toBe(0);
  });
});

describe('the S3 store against the stand-in', () => {
  it('sends path-style, SigV4-signed requests without the checksums some S3-compatible services refuse', async () => {
    const store = drivers[1]![1]();
    const key = newObjectKey('png');
    const from = standIn.requests.length;
    await store.put(key, new Uint8Array([1, 2, 3]), 'image/png');
    const put = standIn.requests.slice(from).find((r) => r.method === 'PUT')!;
    expect(put.path).toBe(`/${standIn.bucket}/${key}`);
    expect(put.contentType).toBe('image/png');
    expect(put.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIA/);
    expect(Object.keys(put.headers).filter((h) => h.startsWith('x-amz-checksum-'))).toEqual([]);
    expect(standIn.objects.get(key)).toMatchObject({ contentType: 'image/png' });
    await store.delete(key);
  });

  it('stores a stream larger than a part as a multipart upload, parts of 8 MiB, two at a time at most', async () => {
    const store = drivers[1]![1]();
    const key = newObjectKey('bin');
    // 17 MiB and a little in chunks of 1 MiB and an odd size, so parts are cut across chunks: three parts.
    const chunks = Array.from({ length: 18 }, (_, i) => Buffer.alloc(i === 17 ? 12_345 : 1024 * 1024, i + 1));
    const whole = Buffer.concat(chunks);
    const from = standIn.requests.length;
    standIn.mostInFlight = 0;
    expect(await store.putStream(key, streamOf(chunks), 'application/vnd.apache.parquet')).toEqual({ bytes: whole.length });
    expect(standIn.mostInFlight).toBeLessThanOrEqual(2);

    const sent = standIn.requests.slice(from);
    const create = sent.filter((r) => r.method === 'POST' && r.query.has('uploads'));
    expect(create).toHaveLength(1);
    expect(create[0]!.contentType).toBe('application/vnd.apache.parquet');
    const parts = sent.filter((r) => r.method === 'PUT' && r.query.has('partNumber'));
    expect(parts.map((r) => [r.query.get('partNumber'), r.bodyLength]).sort()).toEqual([
      ['1', 8 * 1024 * 1024],
      ['2', 8 * 1024 * 1024],
      ['3', whole.length - 16 * 1024 * 1024],
    ]);
    expect(sent.filter((r) => r.method === 'POST' && r.query.has('uploadId'))).toHaveLength(1);
    for (const r of sent) expect(Object.keys(r.headers).filter((h) => h.startsWith('x-amz-checksum-'))).toEqual([]);
    expect(standIn.uploads.size).toBe(0);

    const stored = await store.get(key);
    expect(stored).toMatchObject({ contentType: 'application/vnd.apache.parquet', size: whole.length });
    expect((await bytesOf(stored!.body)).equals(whole)).toBe(true);
    await store.delete(key);
  });

  it('lists a bucket of more than one page by following the continuation token', async () => {
    const store = lazyS3({
      bucket: standIn.bucket,
      region: standIn.region,
      endpoint: standIn.endpoint,
      forcePathStyle: true,
      credentials: standIn.credentials,
    });
    const added = Array.from({ length: 1005 }, () => newObjectKey('gif'));
    for (const key of added) standIn.objects.set(key, { body: Buffer.alloc(1), contentType: 'image/gif' });
    const before = standIn.requests.length;
    const listed = new Set<string>();
    for await (const o of store.list()) listed.add(o.key);
    for (const key of added) expect(listed.has(key)).toBe(true);
    expect(listed.size).toBe(standIn.objects.size);
    expect(standIn.requests.slice(before).filter((r) => r.query.get('list-type') === '2')).toHaveLength(2);
    for (const key of added) standIn.objects.delete(key);
  });

  it('aborts the multipart upload when the stream throws after a part was sent, storing nothing', async () => {
    const store = drivers[1]![1]();
    const key = newObjectKey('bin');
    const chunks = Array.from({ length: 12 }, (_, i) => Buffer.alloc(1024 * 1024, i));
    const from = standIn.requests.length;
    const objects = standIn.objects.size;
    await expect(store.putStream(key, streamOf(chunks, 10), 'application/vnd.apache.parquet')).rejects.toThrow('the export failed midway');
    const sent = standIn.requests.slice(from);
    expect(sent.filter((r) => r.method === 'PUT' && r.query.has('partNumber')).length).toBeGreaterThanOrEqual(1);
    expect(sent.filter((r) => r.method === 'DELETE' && r.query.has('uploadId'))).toHaveLength(1);
    expect(standIn.uploads.size).toBe(0);
    expect(standIn.objects.size).toBe(objects);
    expect(await store.get(key)).toBeNull();
  });

  it('fails loudly with the wrong keys, storing nothing', async () => {
    const store = lazyS3({
      bucket: standIn.bucket,
      region: standIn.region,
      endpoint: standIn.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAWRONG', secretAccessKey: 'wrong' },
    });
    const before = standIn.objects.size;
    await expect(store.put(newObjectKey('png'), new Uint8Array([1]), 'image/png')).rejects.toThrow();
    expect(standIn.objects.size).toBe(before);
    await expect(store.putStream(newObjectKey('jsonl'), streamOf(lines(3)), 'application/x-ndjson')).rejects.toThrow();
    const large = Array.from({ length: 9 }, () => Buffer.alloc(1024 * 1024, 7));
    await expect(store.putStream(newObjectKey('bin'), streamOf(large), 'application/vnd.apache.parquet')).rejects.toThrow();
    expect(standIn.objects.size).toBe(before);
    expect(standIn.uploads.size).toBe(0);
  });
});

describe('keys and configuration', () => {
  it('makes random keys with the given extension, and knows them again', () => {
    const a = newObjectKey('webm');
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}\.webm$/);
    expect(newObjectKey('webm')).not.toBe(a);
    expect(isObjectKey(a)).toBe(true);
    for (const bad of ['../x.png', 'a.png', `${a}/x`, `${a.slice(0, 22)}.PNG`, `${a.slice(0, 22)}.png.svg`, '']) expect(isObjectKey(bad), bad).toBe(false);
    expect(() => newObjectKey('../x')).toThrow();
  });

  it('refuses a local key that is a path', async () => {
    await expect(new LocalStorage(dir).put('../escape', new Uint8Array([1]), 'text/plain')).rejects.toThrow(/not a storage key/);
    expect(await new LocalStorage(dir).get('../escape')).toBeNull();
  });

  it('stores in .data/storage by default, and in the bucket the S3 settings name', () => {
    expect(objectStorage(parseEnv({}))).toMatchObject({ driver: 'local', root: path.resolve('.data/storage') });
    expect(objectStorage(parseEnv({ STORAGE_DRIVER: 's3', S3_BUCKET: 'media', S3_REGION: 'eu-central-1' })).driver).toBe('s3');
    expect(() => parseEnv({ STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET[\s\S]*S3_REGION/);
    expect(() => parseEnv({ STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_REGION: 'r', S3_ACCESS_KEY_ID: 'x' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(() => parseEnv({ STORAGE_DRIVER: 'ftp' })).toThrow(/STORAGE_DRIVER/);
  });
});
