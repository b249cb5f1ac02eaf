'use client';

import { useActionState, useState, type ReactNode } from 'react';
import type { FormState } from '@/lib/console/forms';

export type Action<S extends FormState = FormState> = (state: S, form: FormData) => Promise<S>;

/** What a form says after a submission: the error, or what was done. */
export function Outcome({ state }: { state: FormState }) {
  if (state.error) {
    return (
      <p role="alert" className="form-error">
        {state.error}
      </p>
    );
  }
  return state.notice ? (
    <p role="status" className="form-notice">
      {state.notice}
    </p>
  ) : null;
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
    <form action={formAction} className="console-form" key={key}>
      <Outcome state={state} />
      <label htmlFor={id('name')}>Name</label>
      <input id={id('name')} name="name" required maxLength={100} defaultValue={v.name} />
      <label htmlFor={id('slug')}>Slug</label>
      <input id={id('slug')} name="slug" required maxLength={60} pattern="[a-z0-9]+(-[a-z0-9]+)*" aria-describedby={id('slug-hint')} defaultValue={v.slug} />
      <p id={id('slug-hint')} className="hint">
        Lowercase letters and digits, words joined by hyphens; unique among your apps.
      </p>
      <label htmlFor={id('description')}>Description</label>
      <textarea id={id('description')} name="description" maxLength={500} rows={2} defaultValue={v.description} />
      <label htmlFor={id('category')}>Categories</label>
      <input id={id('category')} name="category" aria-describedby={id('category-hint')} defaultValue={v.category} />
      <p id={id('category-hint')} className="hint">
        Separated by commas, for example: writing, productivity.
      </p>
      <label htmlFor={id('origins')}>Allowed web origins</label>
      <textarea id={id('origins')} name="allowed_origins" rows={3} aria-describedby={id('origins-hint')} defaultValue={v.allowed_origins} />
      <p id={id('origins-hint')} className="hint">
        One per line, like https://app.example.com: the sites whose pages may use this app&apos;s keys. Servers and native apps, which send no Origin, are not
        affected.
      </p>
      <button type="submit" disabled={pending}>
        {submit}
      </button>
    </form>
  );
}

/** A form of one button that asks first (archive, revoke, withdraw). */
export function ConfirmButton({ action, fields, label, question }: { action: Action; fields: Record<string, string>; label: string; question: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form
      action={formAction}
      className="inline-form"
      onSubmit={(event) => {
        if (!window.confirm(question)) event.preventDefault();
      }}
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" disabled={pending}>
        {label}
      </button>
      <Outcome state={state} />
    </form>
  );
}

/** Buttons that change a placement's status. */
export function PlacementButtons({ action, placementId, status, name }: { action: Action; placementId: string; status: string; name: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const button = (act: 'pause' | 'resume' | 'archive', label: string) => (
    <button type="submit" name="action" value={act} disabled={pending} aria-label={`${label} ${name}`}>
      {label}
    </button>
  );
  return (
    <form
      action={formAction}
      className="inline-form"
      onSubmit={(event) => {
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        if (submitter?.value === 'archive' && !window.confirm(`Archive ${name}? It stops serving for good.`)) event.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={placementId} />
      {status === 'active' && button('pause', 'Pause')}
      {status === 'paused' && button('resume', 'Resume')}
      {button('archive', 'Archive')}
      <Outcome state={state} />
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
  choice: { name: string; label: string; options: readonly string[]; fallback: string };
}) {
  const id = (name: string) => `${props.idPrefix}-${props.appId}-${name}`;
  const { choice } = props;
  return (
    <>
      <input type="hidden" name="app_id" value={props.appId} />
      <label htmlFor={id('name')}>{props.nameLabel}</label>
      <input id={id('name')} name="name" required maxLength={100} defaultValue={props.values?.name ?? ''} />
      <label htmlFor={id(choice.name)}>{choice.label}</label>
      <select id={id(choice.name)} name={choice.name} required defaultValue={props.values?.[choice.name] ?? choice.fallback}>
        {choice.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </>
  );
}

export function PlacementForm({ action, appId, formats }: { action: Action; appId: string; formats: readonly string[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="console-form" key={JSON.stringify(state.values ?? {})}>
      <Outcome state={state} />
      <NameAndChoice
        idPrefix="placement"
        appId={appId}
        values={state.values}
        nameLabel="Placement name"
        choice={{ name: 'format', label: 'Format', options: formats, fallback: formats[0]! }}
      />
      <button type="submit" disabled={pending}>
        Create placement
      </button>
    </form>
  );
}

export function KeyForm({ action, appId, environments }: { action: Action; appId: string; environments: readonly string[] }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <>
      {state.createdKey && <NewKey created={state.createdKey} />}
      <form action={formAction} className="console-form" key={JSON.stringify(state.values ?? {}) + (state.createdKey?.masked_key ?? '')}>
        {!state.createdKey && <Outcome state={state} />}
        <NameAndChoice
          idPrefix="key"
          appId={appId}
          values={state.values}
          nameLabel="Key name"
          choice={{ name: 'environment', label: 'Environment', options: environments, fallback: 'production' }}
        />
        <button type="submit" disabled={pending}>
          Create key
        </button>
      </form>
    </>
  );
}

/** Withdraws one user's consent to data sales in an app, on the publisher's word. */
export function ConsentWithdrawalForm({ action, appId }: { action: Action; appId: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="console-form" key={JSON.stringify(state.values ?? {}) + (state.notice ?? '')}>
      <Outcome state={state} />
      <input type="hidden" name="app_id" value={appId} />
      <label htmlFor="consent-user">User id</label>
      <input
        id="consent-user"
        name="user"
        required
        maxLength={500}
        autoComplete="off"
        defaultValue={state.values?.user ?? ''}
        aria-describedby="consent-user-hint"
      />
      <p id="consent-user-hint" className="hint">
        The id your app passes to the SDK for this user (or its SHA-256). It is not stored.
      </p>
      <button type="submit" disabled={pending}>
        Withdraw consent
      </button>
    </form>
  );
}

/** Copies `text` to the clipboard, and says so. */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/** The one time a key is shown in full. */
function NewKey({ created }: { created: NonNullable<FormState['createdKey']> }) {
  return (
    <div className="new-key" role="status">
      <p>
        <strong>{created.name}</strong>: copy this key now. It is shown only once; we keep only its hash.
      </p>
      <p>
        <code data-testid="new-key">{created.key}</code> <CopyButton text={created.key} label="Copy key" />
      </p>
    </div>
  );
}

/** A snippet with a copy button. */
export function Snippet({ label, code }: { label: string; code: string }): ReactNode {
  return (
    <figure className="snippet">
      <figcaption>
        {label} <CopyButton text={code} label="Copy" />
      </figcaption>
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
