// The endpoint form's less common fields: placement, disk, ports and GPU constraints.
import type { Choices } from './endpoint-choices';
import type { FormState } from './endpoint-model';
import { describedBy, Field } from './field';

interface Props {
  form: FormState;
  errors: Record<string, string[]>;
  choices: Choices;
  text: (key: keyof FormState) => { value: string; onInput: (e: Event) => void };
  toggle: (key: 'dataCenterIds', value: string) => void;
}

export function AdvancedFields({ form, errors, choices, text, toggle }: Props) {
  return (
    <details
      class="advanced"
      open={Object.keys(errors).some((k) => ['dataCenterIds', 'disk', 'ports'].includes(k) || k.startsWith('gpu.'))}
    >
      <summary>More settings: data centers, disk, ports{form.compute === 'gpu' ? ', GPU constraints' : ''}</summary>
      <Field name="dataCenterIds" label="Data centers" errors={errors} group hint="None checked: any data center">
        <div class="choices">
          {choices.dataCenters.map((d) => (
            <label key={d.id} class="check">
              <input type="checkbox" checked={form.dataCenterIds.includes(d.id)} onChange={() => toggle('dataCenterIds', d.id)} /> {d.id}{' '}
              <span class="sub">
                {d.name} · {d.region}
              </span>
            </label>
          ))}
        </div>
      </Field>
      <div class="grid">
        <Field name="disk" label="Container disk (GB)" errors={errors}>
          <input type="number" min="1" {...describedBy('disk', errors)} {...text('disk')} />
        </Field>
        <Field name="ports" label="Ports" errors={errors} hint="port/protocol, comma-separated, such as 8000/http">
          <input {...describedBy('ports', errors, true)} {...text('ports')} autocomplete="off" />
        </Field>
        {form.compute === 'gpu' && (
          <>
            <Field name="gpu.excludedTypes" label="Excluded GPU types" errors={errors} hint="GPU type ids, comma-separated">
              <input {...describedBy('gpu.excludedTypes', errors, true)} {...text('excludedTypes')} autocomplete="off" />
            </Field>
            <Field name="gpu.allowedCudaVersions" label="Allowed CUDA versions" errors={errors} hint="Such as 12.4, 12.8; empty: any">
              <input {...describedBy('gpu.allowedCudaVersions', errors, true)} {...text('allowedCudaVersions')} autocomplete="off" />
            </Field>
            <Field name="gpu.minCudaVersion" label="Minimum CUDA version" errors={errors}>
              <input {...describedBy('gpu.minCudaVersion', errors)} {...text('minCudaVersion')} autocomplete="off" />
            </Field>
          </>
        )}
      </div>
    </details>
  );
}
