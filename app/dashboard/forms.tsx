'use client';

import { useActionState, useEffect, useId, useRef } from 'react';
import { toast } from 'sonner';
import type { FormState } from '@/lib/platform/kit/forms';
import { formatName } from '@/lib/schemas/format-names';
import { Alert } from '../_components/ui/alert';
import { Button } from '../_components/ui/button';
import { CodeBlock } from '../_components/ui/code-block';
import { ConfirmDialog } from '../_components/ui/confirm-dialog';
import { Checkbox } from '../_components/ui/checkbox';
import { Select, type Option } from '../_components/ui/select';
import { CopyButton } from '../_components/ui/copy-button';
import { Field, Input, Textarea } from '../_components/ui/input';

export type Action<S extends FormState = FormState> = (state: S, form: FormData) => Promise<S>;

/** What a form says after a submission, next to it: the error, or what was done. */
export function Outcome({ state }: { state: FormState }) {
  if (state.error) return <Alert tone="error">{state.error}</Alert>;
  return state.notice ? <Alert tone="success">{state.notice}</Alert> : null;
}

/**
 * What a one-button form in a table row says after a submission: a toast, since a message in
 * the row would push the table out of shape. The row itself shows the new state.
 */
export function useToastOutcome(state: FormState) {
  const last = useRef<FormState>(state);
  useEffect(() => {
    if (state === last.current) return;
    last.current = state;
    if (state.error) toast.error(state.error);
    else if (state.notice) toast.success(state.notice);
  }, [state]);
}

/**
 * The action, with its success said by a toast as it comes back (in the browser, before the page
 * refreshes): the item it acted on may leave the page, and a message beside it would go too.
 * Errors stay beside the form.
 */
export function toastingSuccess<S extends FormState>(action: Action<S>): Action<S> {
  return async (state, form) => {
    const next = await action(state, form);
    if (!next.error && next.notice) toast.success(next.notice);
    return next;
  };
}

export interface AppValues {
  name: string;
  slug: string;
  description: string;
  category: string;
  allowed_origins: string;
}

const EMPTY_APP: AppValues = { name: '', slug: '', description: '', category: '', allowed_origins: '' };

/** Create or edit an app. After an error the fields keep what was typed. */
export function AppForm({ action, initial = EMPTY_APP, submit, idPrefix }: { action: Action; initial?: AppValues; submit: string; idPrefix: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = { ...initial, ...state.values };
  // A new key for the fields after each submission, so that defaultValue shows what came back.
  const key = JSON.stringify(state.values ?? initial);
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <form action={formAction} className="grid max-w-xl gap-4" key={key}>
      <Outcome state={state} />
      <Field label="Name" htmlFor={id('name')}>
        <Input id={id('name')} name="name" required maxLength={100} defaultValue={v.name} />
      </Field>
      <Field label="Slug" htmlFor={id('slug')} hint="Lowercase letters and digits, words joined by hyphens; unique among your apps." hintId={id('slug-hint')}>
        <Input id={id('slug')} name="slug" required maxLength={60} pattern="[a-z0-9]+(-[a-z0-9]+)*" aria-describedby={id('slug-hint')} defaultValue={v.slug} />
      </Field>
      <Field label="Description" htmlFor={id('description')}>
        <Textarea id={id('description')} name="description" maxLength={500} rows={2} defaultValue={v.description} />
      </Field>
      <Field label="Categories" htmlFor={id('category')} hint="Separated by commas, for example: writing, productivity." hintId={id('category-hint')}>
        <Input id={id('category')} name="category" aria-describedby={id('category-hint')} defaultValue={v.category} />
      </Field>
      <Field
        label="Allowed web origins"
        htmlFor={id('origins')}
        hint="One per line, like https://app.example.com: the sites whose pages may use this app's keys. Servers and native apps, which send no Origin, are not affected."
        hintId={id('origins-hint')}
      >
        <Textarea id={id('origins')} name="allowed_origins" rows={3} aria-describedby={id('origins-hint')} defaultValue={v.allowed_origins} />
      </Field>
      <div>
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
    </form>
  );
}

/** A one-button form that asks first, in a dialog (archive, revoke, withdraw). */
export function ConfirmButton({
  action,
  fields,
  label,
  question,
  confirmLabel,
  description,
  text,
}: {
  action: Action;
  fields: Record<string, string>;
  /** The button's accessible name, naming what it acts on ("Revoke Web"). */
  label: string;
  /** What the button shows, when shorter than its label (in a table row: "Revoke"). */
  text?: string;
  question: string;
  /** What follows from confirming, under the question. */
  description: string;
  confirmLabel: string;
}) {
  const [state, formAction, pending] = useActionState(action, {});
  useToastOutcome(state);
  const formId = useId();
  return (
    <form id={formId} action={formAction} className="inline-flex">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <ConfirmDialog
        trigger={text ?? label}
        triggerProps={{ disabled: pending, variant: 'outline', size: 'xs', 'aria-label': text ? label : undefined }}
        title={question}
        description={description}
        confirmLabel={confirmLabel}
        form={formId}
        destructive
      />
    </form>
  );
}

/** Buttons that change a placement's status; archiving asks first. */
export function PlacementButtons({ action, placementId, status, name }: { action: Action; placementId: string; status: string; name: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  useToastOutcome(state);
  const formId = useId();
  const button = (act: 'pause' | 'resume', label: string) => (
    <Button type="submit" name="action" value={act} disabled={pending} aria-label={`${label} ${name}`} variant="outline" size="xs">
      {label}
    </Button>
  );
  return (
    <form id={formId} action={formAction} className="inline-flex gap-1.5">
      <input type="hidden" name="id" value={placementId} />
      {status === 'active' && button('pause', 'Pause')}
      {status === 'paused' && button('resume', 'Resume')}
      <ConfirmDialog
        trigger="Archive"
        triggerProps={{ disabled: pending, variant: 'outline', size: 'xs', 'aria-label': `Archive ${name}` }}
        title={`Archive ${name}?`}
        description="It stops serving for good. Its earnings stay in your totals."
        confirmLabel="Archive"
        form={formId}
        name="action"
        value="archive"
        destructive
      />
    </form>
  );
}

/**
 * The fields a new placement and a new key share: the app they belong to, a name, and one
 * choice from a list (the format, the environment). After an error they keep what was typed.
 */
function NameAndChoice(props: {
  idPrefix: string;
  appId: string;
  values: Record<string, string> | undefined;
  nameLabel: string;
  choice: { name: string; label: string; options: readonly Option[]; fallback: string };
}) {
  const id = (name: string) => `${props.idPrefix}-${props.appId}-${name}`;
  const { choice } = props;
  return (
    <>
      <input type="hidden" name="app_id" value={props.appId} />
      <Field label={props.nameLabel} htmlFor={id('name')}>
        <Input id={id('name')} name="name" required maxLength={100} defaultValue={props.values?.name ?? ''} />
      </Field>
      <Field label={choice.label} htmlFor={id(choice.name)}>
        <Select id={id(choice.name)} name={choice.name} required defaultValue={props.values?.[choice.name] ?? choice.fallback} options={choice.options} />
      </Field>
    </>
  );
}

export function PlacementForm({ action, appId, formats }: { action: Action; appId: string; formats: readonly string[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="grid max-w-xl gap-4 sm:grid-cols-[1fr_12rem_auto] sm:items-end" key={JSON.stringify(state.values ?? {})}>
      <div className="sm:col-span-3">
        <Outcome state={state} />
      </div>
      <NameAndChoice
        idPrefix="placement"
        appId={appId}
        values={state.values}
        nameLabel="Placement name"
        choice={{ name: 'format', label: 'Format', options: formats.map((f) => ({ value: f, label: formatName(f) })), fallback: formats[0]! }}
      />
      <Button type="submit" disabled={pending}>
        Create placement
      </Button>
    </form>
  );
}

/** A snippet of the new key's app, filled in with the key (made on the server, from the placements). */
export interface KeySnippet {
  label: string;
  code: string;
}

export function KeyForm({
  action,
  appId,
  environments,
  snippets,
  kind = 'publishable',
  placeholder,
}: {
  action: Action;
  appId: string;
  environments: readonly string[];
  /** The ready-to-paste snippets for a key, `placeholder` standing for it until it is made. */
  snippets: KeySnippet[];
  placeholder: string;
  /** A publishable key for pages and apps, or a secret server key. */
  kind?: 'publishable' | 'server';
}) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <>
      {state.createdKey && <NewKey created={state.createdKey} snippets={snippets} placeholder={placeholder} server={kind === 'server'} />}
      <form
        action={formAction}
        className="grid max-w-xl gap-4 sm:grid-cols-[1fr_12rem_auto] sm:items-end"
        key={JSON.stringify(state.values ?? {}) + (state.createdKey?.masked_key ?? '')}
      >
        {!state.createdKey && state.error && (
          <div className="sm:col-span-3">
            <Outcome state={state} />
          </div>
        )}
        <input type="hidden" name="kind" value={kind} />
        <NameAndChoice
          idPrefix={kind === 'server' ? 'server-key' : 'key'}
          appId={appId}
          values={state.values}
          nameLabel={kind === 'server' ? 'Name of the server key' : 'Key name'}
          choice={{
            name: 'environment',
            label: 'Environment',
            options: environments.map((e) => ({ value: e, label: e === 'production' ? 'Production' : 'Development' })),
            fallback: 'production',
          }}
        />
        <Button type="submit" disabled={pending}>
          {kind === 'server' ? 'Create server key' : 'Create key'}
        </Button>
      </form>
    </>
  );
}

/** Withdraws one user's consent to data sales in an app, on the publisher's word. */
export function ConsentWithdrawalForm({ action, appId }: { action: Action; appId: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="grid max-w-xl gap-4" key={JSON.stringify(state.values ?? {}) + (state.notice ?? '')}>
      <Outcome state={state} />
      <input type="hidden" name="app_id" value={appId} />
      <Field
        label="User id"
        htmlFor="consent-user"
        hint="The id your app passes to the SDK for this user (or its SHA-256). It is not stored."
        hintId="consent-user-hint"
      >
        <Input
          id="consent-user"
          name="user"
          required
          maxLength={500}
          autoComplete="off"
          defaultValue={state.values?.user ?? ''}
          aria-describedby="consent-user-hint"
        />
      </Field>
      <div>
        <Button type="submit" disabled={pending} variant="outline">
          Withdraw consent
        </Button>
      </div>
    </form>
  );
}

/** The one time a key is shown in full, with the snippets filled in with it. */
export function NewKey({
  created,
  snippets,
  placeholder,
  server,
}: {
  created: NonNullable<FormState['createdKey']>;
  snippets: KeySnippet[];
  placeholder: string;
  server: boolean;
}) {
  return (
    <div className="mb-6 grid gap-3 rounded-xl border-2 border-primary/60 bg-primary/5 p-4" role="status">
      <p className="text-sm">
        <strong>{created.name}</strong>: copy this key now. It is shown only once; we keep only its hash.
        {server && ' It is a secret: keep it on your server, in an environment variable, never in a page, an app or a repository.'}
      </p>
      <div className="flex min-w-0 flex-wrap items-center gap-2">
        <code data-testid="new-key" className="min-w-0 rounded-md border bg-background px-2 py-1 text-sm break-all">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy key" what="Key" />
      </div>
      {snippets.length > 0 && (
        <div className="min-w-0">
          <p className="text-sm font-medium">Ready to paste, with this key:</p>
          {snippets.map((s) => (
            <CodeBlock key={s.label} label={s.label} code={s.code.replaceAll(placeholder, created.key)} />
          ))}
        </div>
      )}
    </div>
  );
}

export interface AdRulesValues {
  excluded_topics: string;
  blocked_advertisers: string;
  /** Ticked categories, joined by commas. */
  blocked_categories: string;
}

/** An app's excluded topics and blocks (lib/publisher/ad-rules.ts). After an error the fields keep what was typed. */
export function AdRulesForm({
  action,
  appId,
  initial,
  categories,
}: {
  action: Action;
  appId: string;
  initial: AdRulesValues;
  categories: readonly { value: string; name: string }[];
}) {
  const [state, formAction, pending] = useActionState(action, {});
  const v = { ...initial, ...state.values };
  const ticked = new Set(v.blocked_categories.split(',').filter(Boolean));
  const id = (name: string) => `ad-rules-${name}`;
  return (
    <form action={formAction} className="grid max-w-xl gap-4" key={JSON.stringify(state.values ?? initial)}>
      <Outcome state={state} />
      <input type="hidden" name="id" value={appId} />
      <Field
        label="Excluded topics"
        htmlFor={id('topics')}
        hint="One per line or separated by commas, up to 20 short phrases: a conversation that names one gets no ad."
        hintId={id('topics-hint')}
      >
        <Textarea id={id('topics')} name="excluded_topics" rows={3} aria-describedby={id('topics-hint')} defaultValue={v.excluded_topics} />
      </Field>
      <Field
        label="Blocked advertisers"
        htmlFor={id('advertisers')}
        hint="One name per line, as ads show it (case does not matter): their ads never show in this app."
        hintId={id('advertisers-hint')}
      >
        <Textarea id={id('advertisers')} name="blocked_advertisers" rows={3} aria-describedby={id('advertisers-hint')} defaultValue={v.blocked_advertisers} />
      </Field>
      <fieldset className="grid gap-2">
        <legend className="mb-1 text-sm font-medium">Blocked categories of advertiser</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {categories.map((c) => (
            <label key={c.value} className="flex items-start gap-2 text-sm">
              <Checkbox name="blocked_categories" value={c.value} defaultChecked={ticked.has(c.value)} />
              <span>{c.name}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div>
        <Button type="submit" disabled={pending}>
          Save ad rules
        </Button>
      </div>
    </form>
  );
}

/** A placement's min_relevance, in a table row: a number from 0 to 1 and a button; what happened comes as a toast. */
export function MinRelevanceForm({ action, placementId, name, value }: { action: Action; placementId: string; name: string; value: number }) {
  const [state, formAction, pending] = useActionState(action, {});
  useToastOutcome(state);
  return (
    <form action={formAction} className="flex items-center gap-2" key={`${value}-${JSON.stringify(state.values ?? {})}`}>
      <input type="hidden" name="id" value={placementId} />
      <Input
        name="min_relevance"
        type="number"
        inputMode="decimal"
        min={0}
        max={1}
        step={0.001}
        required
        defaultValue={state.values?.min_relevance ?? String(value)}
        aria-label={`Least relevance for ${name}`}
        className="w-24"
      />
      <Button type="submit" size="sm" variant="outline" disabled={pending}>
        Save
      </Button>
    </form>
  );
}
