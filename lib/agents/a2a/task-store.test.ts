import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { suiteDatabase, testEngines } from '../../../tests/helpers/db';
import { DatabaseTaskStore, storable } from './task-store';

/**
 * A task holds the caller's text, which JSON can carry with characters jsonb refuses (found by
 * tests/integration/fuzz.test.ts: a messageId of one lone surrogate was a 500 at POST /a2a).
 */

const task = (id: string, text: string, messageId: string): Task => ({
  id,
  contextId: 'c',
  status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: '2026-11-24T10:00:00.000Z' },
  artifacts: [],
  history: [
    {
      messageId,
      contextId: 'c',
      taskId: id,
      role: 1,
      parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
      metadata: { [text]: text },
      extensions: [],
      referenceTaskIds: [],
    },
  ],
  metadata: undefined,
});

describe('storable', () => {
  it('replaces NUL and unpaired surrogates, in values and keys, and keeps the rest', () => {
    expect(storable({ 'a\u0000': ['\ud800x', 'ok 😀', 5, null, { b: '\udc00' }] })).toEqual({ 'a\uFFFD': ['\uFFFDx', 'ok 😀', 5, null, { b: '\uFFFD' }] });
  });
});

for (const engine of testEngines()) {
  describe(`A2A tasks with text jsonb refuses, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);

    it('are saved, with each such character replaced', async () => {
      const store = new DatabaseTaskStore(async () => suite.db);
      const id = crypto.randomUUID();
      await store.save(task(id, 'nul \u0000 and half \ud800 of a pair', '\ud800'));
      const loaded = (await store.load(id))!;
      expect(loaded.history[0]!.messageId).toBe('\uFFFD');
      expect(loaded.history[0]!.parts[0]!.content).toEqual({ $case: 'text', value: 'nul \uFFFD and half \uFFFD of a pair' });
    });

    it('are not found by an id the database would refuse (GetTask with a NUL in its id was a 500)', async () => {
      const store = new DatabaseTaskStore(async () => suite.db);
      for (const id of ['\u0000', 'a\u0000b', '\ud800']) expect(await store.load(id)).toBeUndefined();
    });
  });
}
