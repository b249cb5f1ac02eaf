import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { RangeNotSatisfiable, type ByteRange, type ListedObject, type ObjectStorage, type StoredObject } from './object-storage';

/**
 * The default store: a folder on this machine (STORAGE_DIR, `.data/storage`). Each object is a
 * file under `objects/`, its content type a small file of the same name under `types/`. A write
 * goes to `tmp/` first and is renamed into place, so a reader never sees half a file, and an
 * object is there only once both its files are. Nothing is created until the first write.
 *
 * One machine's folder: several instances, or a host whose disk does not last (serverless), need
 * the S3 store instead.
 */
export class LocalStorage implements ObjectStorage {
  readonly driver = 'local';

  constructor(readonly root: string) {}

  /** Keys are flat names of safe characters: never a path (no separator, no `..`). */
  private file(folder: 'objects' | 'types', key: string): string {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(key) || key.includes('..')) throw new TypeError(`not a storage key: ${JSON.stringify(key)}`);
    return path.join(this.root, folder, key);
  }

  /** A new file name under `tmp/`, its folder and the target's made. */
  private async tmpFor(target: string): Promise<string> {
    const tmp = path.join(this.root, 'tmp', randomBytes(12).toString('hex'));
    await mkdir(path.dirname(tmp), { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    return tmp;
  }

  private async writeAtomically(target: string, data: Uint8Array | string): Promise<void> {
    const tmp = await this.tmpFor(target);
    try {
      await writeFile(tmp, data);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    // The type first: the object counts as stored once its bytes are in place.
    await this.writeAtomically(this.file('types', key), contentType);
    await this.writeAtomically(this.file('objects', key), bytes);
  }

  async putStream(key: string, chunks: AsyncIterable<Uint8Array>, contentType: string): Promise<{ bytes: number }> {
    const target = this.file('objects', key);
    const tmp = await this.tmpFor(target);
    try {
      // The file is opened before anything is piped: a write stream that opened it itself could
      // create it after a source that failed at once had already been cleaned up after.
      // pipeline writes each chunk as the file takes it (it waits for 'drain'), so a fast source
      // is read no faster than the disk writes; on any error it closes the file, and the source
      // is told to stop.
      const out = (await open(tmp, 'wx')).createWriteStream();
      await pipeline(chunks, out);
      // As in put: the type first, then the bytes renamed into place, so the object is there
      // whole or not at all.
      await this.writeAtomically(this.file('types', key), contentType);
      await rename(tmp, target);
      return { bytes: out.bytesWritten };
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    let objectFile: string;
    try {
      objectFile = this.file('objects', key);
    } catch {
      return null;
    }
    let size: number;
    let contentType: string;
    try {
      [size, contentType] = await Promise.all([stat(objectFile).then((s) => s.size), readFile(this.file('types', key), 'utf8')]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    if (!range) return { body: stream(objectFile), contentType, size };
    if (range.start >= size) throw new RangeNotSatisfiable(size);
    const end = Math.min(range.end ?? size - 1, size - 1);
    return { body: stream(objectFile, { start: range.start, end }), contentType, size, range: { start: range.start, end } };
  }

  async delete(key: string): Promise<void> {
    await rm(this.file('objects', key), { force: true });
    await rm(this.file('types', key), { force: true });
  }

  /** The files under `objects/` (nothing before the first write), each with its size and the time it was renamed into place. */
  async *list(): AsyncIterable<ListedObject> {
    let names: string[];
    try {
      names = await readdir(path.join(this.root, 'objects'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const key of names) {
      // Deleted since the folder was read: not listed.
      const s = await stat(this.file('objects', key)).catch(() => null);
      if (s?.isFile()) yield { key, size: s.size, modifiedAt: s.mtime };
    }
  }
}

/**
 * The file's bytes as a stream that opens the file on its first read (`highWaterMark: 0`: nothing
 * is read ahead), so an answer whose body is never read (a HEAD) holds no file open; cancelling
 * it closes the file.
 */
function stream(file: string, range?: { start: number; end: number }): ReadableStream<Uint8Array> {
  let source: ReadStream | undefined;
  let chunks: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        source ??= createReadStream(file, range);
        chunks ??= source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
      },
      cancel() {
        source?.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
