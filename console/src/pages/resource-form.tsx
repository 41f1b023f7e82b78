// The form of an account resource, to create one or to edit one: the server's field errors
// (problem+json) show beside their fields. Editing sends only the fields that changed.
import { useState } from 'preact/hooks';
import { Problem } from '../api';
import { ErrorNote } from '../ui';
import { errorsByPath } from './resource-errors';

export interface Input {
  name: string;
  label: string;
  type?: 'text' | 'number' | 'password' | 'checkbox';
  hint?: string;
}

type Values = Record<string, string | boolean>;

function startingValues(inputs: Input[], initial: Record<string, unknown> | undefined): Values {
  if (!initial) return {};
  return Object.fromEntries(
    inputs.map((i) => [i.name, i.type === 'checkbox' ? Boolean(initial[i.name]) : initial[i.name] == null ? '' : String(initial[i.name])]),
  );
}

export function ResourceForm({
  label,
  inputs,
  initial,
  submitLabel,
  send,
  onDone,
}: {
  label: string;
  inputs: Input[];
  /** The resource being edited: its fields start the form, and only changes are sent. */
  initial?: Record<string, unknown>;
  submitLabel: string;
  send: (body: Record<string, unknown>) => Promise<unknown>;
  onDone: () => void;
}) {
  const [start] = useState(() => startingValues(inputs, initial));
  const [values, setValues] = useState<Values>(start);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [unchanged, setUnchanged] = useState(false);
  const prefix = initial ? 'edit' : 'new';
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = Object.fromEntries(
      inputs
        .filter((i) => values[i.name] !== undefined && (!initial || values[i.name] !== start[i.name]))
        .map((i) => [i.name, i.type === 'number' ? Number(values[i.name]) : values[i.name]]),
    );
    if (initial && Object.keys(body).length === 0) {
      setUnchanged(true);
      return;
    }
    try {
      await send(body);
      onDone();
    } catch (err) {
      setErrors(
        err instanceof Problem
          ? errorsByPath(
              err.errors,
              inputs.map((i) => i.name),
            )
          : {},
      );
      setFailure(err);
    }
  };
  return (
    <form class="form card" noValidate onSubmit={(e) => void submit(e)} aria-label={label}>
      {initial && <h2>{label}</h2>}
      <ErrorNote error={failure} />
      {unchanged && <p class="hint">Nothing changed.</p>}
      {inputs.map((i) => {
        const id = `${prefix}-${i.name}`;
        const messages = errors[i.name];
        const described = [i.hint ? `${id}-hint` : '', messages ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        const set = (value: string | boolean) => {
          setUnchanged(false);
          setValues({ ...values, [i.name]: value });
        };
        return (
          <div key={i.name} class={`field${messages ? ' invalid' : ''}`}>
            {i.type === 'checkbox' ? (
              <label class="check">
                <input id={id} type="checkbox" checked={Boolean(values[i.name])} onChange={(e) => set(e.currentTarget.checked)} /> {i.label}
              </label>
            ) : (
              <>
                <label for={id}>{i.label}</label>
                <input
                  id={id}
                  type={(i.type ?? 'text') as 'text'}
                  autocomplete="off"
                  value={String(values[i.name] ?? '')}
                  onInput={(e) => set(e.currentTarget.value)}
                  aria-invalid={messages ? 'true' : undefined}
                  aria-describedby={described}
                />
              </>
            )}
            {i.hint && (
              <p class="hint" id={`${id}-hint`}>
                {i.hint}
              </p>
            )}
            {messages && (
              <p class="field-error" id={`${id}-error`}>
                {messages.join('; ')}
              </p>
            )}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" class="primary">
          {submitLabel}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
