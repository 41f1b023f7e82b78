// A labelled form field whose server errors sit right under it and are announced with it.
import type { ComponentChildren } from 'preact';

export const fieldId = (name: string) => `f-${name.replace(/\./g, '-')}`;

/** Props tying an input to its label and errors. */
export function describedBy(name: string, errors: Record<string, string[]>, hint = false) {
  const ids = [hint ? `${fieldId(name)}-hint` : '', errors[name] ? `${fieldId(name)}-error` : ''].filter(Boolean).join(' ');
  return {
    id: fieldId(name),
    'aria-invalid': errors[name] ? ('true' as const) : undefined,
    'aria-describedby': ids || undefined,
  };
}

export function Field(props: {
  name: string;
  label: string;
  hint?: string;
  errors: Record<string, string[]>;
  children: ComponentChildren;
  group?: boolean;
}) {
  const { name, label, hint, errors, children, group } = props;
  const id = fieldId(name);
  const messages = errors[name];
  const body = (
    <>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
      {messages && (
        <p class="field-error" id={`${id}-error`}>
          {messages.join('; ')}
        </p>
      )}
    </>
  );
  if (group) {
    return (
      <fieldset class={`field${messages ? ' invalid' : ''}`} aria-describedby={messages ? `${id}-error` : undefined}>
        <legend>{label}</legend>
        {body}
      </fieldset>
    );
  }
  return (
    <div class={`field${messages ? ' invalid' : ''}`}>
      <label for={id}>{label}</label>
      {body}
    </div>
  );
}
