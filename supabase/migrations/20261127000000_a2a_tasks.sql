-- A2A tasks in the database, so every instance can answer GetTask for a task another one created.
--
-- A task is kept 15 minutes after it was last saved (the agent's documented lifetime), found by
-- its id, a random UUID only its creator knows. Each save deletes the expired ones, so the table
-- holds at most 15 minutes of tasks. Only the service reads and writes it (lib/a2a/task-store.ts):
-- no policy for anon or authenticated.
create table public.a2a_tasks (
  id        text primary key check (length(id) between 1 and 200),
  task      jsonb not null,
  saved_at  timestamptz not null default now()
);
create index a2a_tasks_saved_at on public.a2a_tasks (saved_at);

revoke all on public.a2a_tasks from public, anon, authenticated;
grant select, insert, update, delete on public.a2a_tasks to service_role;
alter table public.a2a_tasks enable row level security;
alter table public.a2a_tasks force row level security;
