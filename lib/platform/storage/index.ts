import path from 'node:path';
import { env, type Env } from '../env';
import { LocalStorage } from './local';
import type { ObjectStorage, S3Settings } from './object-storage';

export {
  isObjectKey,
  newObjectKey,
  RangeNotSatisfiable,
  type ByteRange,
  type ListedObject,
  type ObjectStorage,
  type S3Settings,
  type StoredObject,
} from './object-storage';
export { LocalStorage } from './local';

/** The store the configuration names (STORAGE_DRIVER): a folder, or an S3 bucket. */
export function objectStorage(settings: Env = env()): ObjectStorage {
  // The folder is the server's own state, not code: kept out of the build's file tracing, which
  // would otherwise take this path for the whole project and ship it with every server function.
  if (settings.STORAGE_DRIVER === 'local') return new LocalStorage(path.resolve(/*turbopackIgnore: true*/ process.cwd(), settings.STORAGE_DIR));
  return lazyS3({
    bucket: settings.S3_BUCKET!,
    region: settings.S3_REGION!,
    endpoint: settings.S3_ENDPOINT,
    forcePathStyle: settings.S3_FORCE_PATH_STYLE === 'true',
    credentials:
      settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY }
        : undefined,
  });
}

/**
 * The S3 store, its module loaded on first use: the AWS SDK takes a while to load, and a process
 * that stores nothing (most requests, every test that uploads nothing) never pays for it.
 */
export function lazyS3(settings: S3Settings): ObjectStorage {
  let loaded: Promise<ObjectStorage> | undefined;
  const store = () => (loaded ??= import('./s3').then(({ S3Storage }) => new S3Storage(settings)));
  return {
    driver: 's3',
    put: async (key, bytes, contentType) => (await store()).put(key, bytes, contentType),
    putStream: async (key, chunks, contentType) => (await store()).putStream(key, chunks, contentType),
    get: async (key, range) => (await store()).get(key, range),
    delete: async (key) => (await store()).delete(key),
    list: async function* () {
      yield* (await store()).list();
    },
  };
}
