import { describe, expect, it } from 'vitest';
import { getEarnings, listApiKeys, listApps } from '@/lib/account/operations';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { sha256Hex } from '@/lib/platform/crypto';
import {
  archiveAppForm,
  changePlacementForm,
  createApiKeyForm,
  createAppForm,
  createPlacementForm,
  revokeApiKeyForm,
  updateAppForm,
  withdrawApprovalForm,
} from '@/lib/publisher/forms';
import { consoleAccount } from '@/lib/publisher/session';
import { listApprovals, recordApproval } from '@/lib/identity/oauth/approvals';
import { suiteDatabase, testEngines } from '../helpers/db';
import { accessToken } from '../helpers/tokens';
import { get } from '../helpers/account';
import { handlersOf } from '../helpers/routes';
import { rawAsService } from '../helpers/roles';

/**
 * The console's writes, from form fields to rows, as each demo publisher, on every engine: what
 * a publisher may create and change, the messages for bad input (with what was typed kept), and
 * that nothing reaches another publisher's rows, whatever ids a form sends.
 */

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

for (const engine of testEngines()) {
  describe(`console writes on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const publisher = (id: string): SignedInUser => ({ id, email: 'x@example.com', name: null });
    const me = () => publisher(suite.users.demo);
    const other = () => publisher(suite.users.demo2);
    const appsOf = async (user: SignedInUser) => listApps(consoleAccount(user, suite.services.database), 'all');
    const keysOf = async (user: SignedInUser) => (await listApiKeys(consoleAccount(user, suite.services.database), 'all')).api_keys;
    const appOf = async (user: SignedInUser) => (await appsOf(user)).apps[0]!.id;

    const newApp = (fields: Partial<Record<string, string>> = {}) =>
      form({
        name: 'Story Forge',
        slug: 'story-forge',
        description: 'Stories',
        category: 'Writing, games',
        allowed_origins: 'https://storyforge.example\nhttp://localhost:5173',
        ...fields,
      });

    it('creates an app with its categories and allowed origins, and the API lists it', async () => {
      const state = await createAppForm(newApp(), me(), suite.services);
      expect(state).toMatchObject({ notice: 'Created Story Forge.', id: expect.any(String) });
      const { apps } = await appsOf(me());
      expect(apps.find((a) => a.id === state.id)).toMatchObject({
        name: 'Story Forge',
        slug: 'story-forge',
        category: ['writing', 'games'],
        allowed_origins: ['https://storyforge.example', 'http://localhost:5173'],
      });
      // The same row through the REST API, with a token of this publisher.
      const { body } = await get(handlersOf('/api/v1/me/apps').GET, '/api/v1/me/apps', await accessToken(suite.users.demo));
      expect((body.apps as { id: string }[]).map((a) => a.id)).toContain(state.id);
    });

    it('refuses a slug the publisher already uses, keeping what was typed; another publisher may use it', async () => {
      const again = await createAppForm(newApp({ name: 'Second Forge' }), me(), suite.services);
      expect(again.error).toBe('You already have an app with the slug “story-forge”. Choose another.');
      expect(again.values).toMatchObject({ name: 'Second Forge', slug: 'story-forge', description: 'Stories' });
      expect((await createAppForm(newApp(), other(), suite.services)).notice).toBe('Created Story Forge.');
    });

    it.each([
      ['an empty name', { name: '  ' }, 'Enter a name for the app.'],
      ['a slug with spaces', { slug: 'story forge' }, /lowercase letters and digits/],
      ['an origin with a path', { allowed_origins: 'https://storyforge.example/app' }, /scheme and host/],
      ['an http origin that is not local', { allowed_origins: 'http://storyforge.example' }, /http only for localhost/],
      ['too many categories', { category: Array.from({ length: 11 }, (_, i) => `c${i}`).join(',') }, 'List at most 10 categories.'],
    ])('explains %s and keeps the fields', async (_what, change, message) => {
      const state = await createAppForm(newApp({ slug: 'kept-slug', ...change }), me(), suite.services);
      expect(state.error).toMatch(message);
      expect(state.values).toMatchObject({ description: 'Stories', ...change });
    });

    it('edits an app, and cannot edit or archive another publisher’s app', async () => {
      const id = (await appsOf(me())).apps.find((a) => a.slug === 'story-forge')!.id;
      expect((await updateAppForm(id, newApp({ name: 'Story Forge 2', slug: 'story-forge-2', allowed_origins: '' }), me(), suite.services)).notice).toMatch(
        /^Saved\./,
      );
      expect((await appsOf(me())).apps.find((a) => a.id === id)).toMatchObject({ name: 'Story Forge 2', slug: 'story-forge-2', allowed_origins: [] });
      const theirs = await appOf(other());
      expect((await updateAppForm(theirs, newApp({ slug: 'taken-over' }), me(), suite.services)).error).toBe('That app does not exist, or is archived.');
      expect((await archiveAppForm(form({ id: theirs }), me(), suite.services)).error).toMatch(/does not exist/);
      expect((await updateAppForm('not-an-id', newApp({ slug: 'any-slug' }), me(), suite.services)).error).toBe('Unknown app.');
      expect((await appsOf(other())).apps.find((a) => a.id === theirs)?.slug).not.toBe('taken-over');
    });

    it('creates placements of the four formats, and refuses an unknown format or another publisher’s app', async () => {
      const app = (await appsOf(me())).apps.find((a) => a.slug === 'story-forge-2')!.id;
      for (const format of ['floating_video', 'tooltip', 'sponsored_card', 'inline_text']) {
        expect((await createPlacementForm(form({ app_id: app, name: `P ${format}`, format }), me(), suite.services)).notice).toBe(
          `Created the placement P ${format}.`,
        );
      }
      const unknown = await createPlacementForm(form({ app_id: app, name: 'Banner', format: 'banner' }), me(), suite.services);
      expect(unknown.error).toMatch(/Choose one of the formats/);
      expect(unknown.values).toMatchObject({ name: 'Banner', format: 'banner' });
      const theirs = await appOf(other());
      expect((await createPlacementForm(form({ app_id: theirs, name: 'Intruder', format: 'tooltip' }), me(), suite.services)).error).toMatch(/does not exist/);
      const { placements } = await appsOf(me());
      expect(placements.filter((p) => p.app_id === app).map((p) => [p.format, p.status])).toEqual([
        ['floating_video', 'active'],
        ['tooltip', 'active'],
        ['sponsored_card', 'active'],
        ['inline_text', 'active'],
      ]);
    });

    it('pauses, resumes and archives a placement; an archived one stays archived', async () => {
      const { placements } = await appsOf(me());
      const p = placements.find((x) => x.name === 'P tooltip')!;
      const act = (action: string, who = me()) => changePlacementForm(form({ id: p.id, action }), who, suite.services);
      expect((await act('resume')).error).toMatch(/cannot be resumed/);
      expect((await act('pause')).notice).toBe('Paused.');
      expect((await act('resume')).notice).toBe('Resumed.');
      expect((await act('pause', other())).error).toMatch(/does not exist/);
      expect((await act('archive')).notice).toBe('Archived.');
      expect((await act('resume')).error).toMatch(/cannot be resumed/);
      expect((await act('destroy')).error).toBe('Unknown action.');
      expect((await appsOf(me())).placements.find((x) => x.id === p.id)?.status).toBe('archived');
    });

    it('creates a key shown once in full and stored as a hash, then revokes it', async () => {
      const app = (await appsOf(me())).apps.find((a) => a.slug === 'story-forge-2')!.id;
      const state = await createApiKeyForm(form({ app_id: app, name: 'Web', environment: 'development' }), me(), suite.services);
      const created = state.createdKey!;
      expect(created.key).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
      expect(created.masked_key).toBe(`${created.key.slice(0, 16)}…${created.key.slice(-4)}`);
      const [row] = await rawAsService(suite.db, (q) =>
        q.query<{ key_hash: string; id: string }>('select id, key_hash from public.api_keys where key_prefix = $1', [created.key.slice(0, 16)]),
      );
      expect(row!.key_hash).toBe(sha256Hex(created.key));
      const stored = JSON.stringify(await rawAsService(suite.db, (q) => q.query('select * from public.api_keys where id = $1', [row!.id])));
      expect(stored).not.toContain(created.key);
      expect((await keysOf(me())).find((k) => k.id === row!.id)).toMatchObject({
        app_id: app,
        name: 'Web',
        environment: 'development',
        status: 'active',
        masked_key: created.masked_key,
      });

      expect((await revokeApiKeyForm(form({ id: row!.id }), other(), suite.services)).error).toMatch(/does not exist/);
      expect((await revokeApiKeyForm(form({ id: row!.id }), me(), suite.services)).notice).toMatch(/Revoked/);
      expect((await revokeApiKeyForm(form({ id: row!.id }), me(), suite.services)).error).toMatch(/revoked already/);
      expect((await keysOf(me())).find((k) => k.id === row!.id)?.status).toBe('revoked');
    });

    it('refuses a key for another publisher’s app, or with an unknown environment', async () => {
      expect((await createApiKeyForm(form({ app_id: await appOf(other()), name: 'Borrowed', environment: 'production' }), me(), suite.services)).error).toMatch(
        /does not exist/,
      );
      const app = await appOf(me());
      expect((await createApiKeyForm(form({ app_id: app, name: 'Staging', environment: 'staging' }), me(), suite.services)).error).toMatch(
        /development or production/,
      );
      expect((await createApiKeyForm(form({ app_id: 'not-a-uuid', name: 'X', environment: 'production' }), me(), suite.services)).error).toBe('Unknown app.');
    });

    it('archives an app: unlisted, its keys revoked, its earnings still counted', async () => {
      const before = await getEarnings(consoleAccount(me(), suite.services.database), 0);
      const app = (await appsOf(me())).apps.find((a) => a.slug === 'story-forge-2')!.id;
      await createApiKeyForm(form({ app_id: app, name: 'Live', environment: 'production' }), me(), suite.services);
      expect((await archiveAppForm(form({ id: app }), me(), suite.services)).notice).toMatch(/archived/);
      const { apps, placements } = await appsOf(me());
      expect(apps.map((a) => a.id)).not.toContain(app);
      expect(placements.map((p) => p.app_id)).not.toContain(app);
      expect((await keysOf(me())).filter((k) => k.app_id === app).map((k) => k.status)).toEqual(['revoked', 'revoked']);
      expect(await getEarnings(consoleAccount(me(), suite.services.database), 0)).toEqual(before);
      expect((await createPlacementForm(form({ app_id: app, name: 'Late', format: 'tooltip' }), me(), suite.services)).error).toMatch(/archived/);
    });

    it('lists the clients a publisher approved, and withdraws only their own', async () => {
      await recordApproval(suite.db, suite.users.demo, { clientId: 'mcl_console000000000000000', name: 'Console test client' }, ['profile:read']);
      await recordApproval(suite.db, suite.users.demo, { clientId: 'mcl_console000000000000000', name: 'Console test client' }, ['profile:read', 'apps:read']);
      const mine = await listApprovals(suite.db, suite.users.demo);
      expect(mine.find((a) => a.client_id === 'mcl_console000000000000000')).toMatchObject({
        client_name: 'Console test client',
        scopes: ['profile:read', 'apps:read'],
      });
      expect((await listApprovals(suite.db, suite.users.demo2)).map((a) => a.client_id)).not.toContain('mcl_console000000000000000');
      expect((await withdrawApprovalForm(form({ client_id: 'mcl_console000000000000000' }), other(), suite.services)).error).toBe(
        'That approval does not exist.',
      );
      expect((await withdrawApprovalForm(form({ client_id: 'mcl_console000000000000000' }), me(), suite.services)).notice).toMatch(/must ask you again/);
      expect((await listApprovals(suite.db, suite.users.demo)).map((a) => a.client_id)).not.toContain('mcl_console000000000000000');
    });
  });
}
