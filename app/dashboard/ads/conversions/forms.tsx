'use client';

import { useActionState } from 'react';
import { Button } from '../../../_components/ui/button';
import { Field, Input } from '../../../_components/ui/input';
import { NewKey, Outcome, type Action, type KeySnippet } from '../../forms';

/** Makes a conversions key: its secret is shown once, above the form, with the snippets filled in with it. */
export function ConversionKeyForm({ action, snippets, placeholder }: { action: Action; snippets: KeySnippet[]; placeholder: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <>
      {state.createdKey && <NewKey created={state.createdKey} snippets={snippets} placeholder={placeholder} server />}
      <form
        action={formAction}
        className="grid max-w-xl gap-4 sm:grid-cols-[1fr_auto] sm:items-end"
        key={JSON.stringify(state.values ?? {}) + (state.createdKey?.masked_key ?? '')}
      >
        {!state.createdKey && state.error && (
          <div className="sm:col-span-2">
            <Outcome state={state} />
          </div>
        )}
        <Field label="Name of the key" htmlFor="conversion-key-name" hint="Where it is used, say “Checkout server”." hintId="conversion-key-name-hint">
          <Input
            id="conversion-key-name"
            name="name"
            required
            maxLength={100}
            autoComplete="off"
            defaultValue={state.values?.name ?? ''}
            aria-describedby="conversion-key-name-hint"
          />
        </Field>
        <Button type="submit" disabled={pending}>
          Make key
        </Button>
      </form>
    </>
  );
}
