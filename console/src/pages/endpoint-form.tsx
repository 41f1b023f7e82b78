// Create or edit an endpoint. The server judges every field; its problem+json errors are shown
// beside the fields they name, and the rest above the form.
import { useEffect, useState } from 'preact/hooks';
import { api, apiPath, Problem } from '../api';
import { navigate, Link } from '../router';
import { canWrite, session, useStore } from '../state';
import type { Endpoint } from '../types';
import { ErrorNote, Page } from '../ui';
import { bodyOf, changesOf, emptyForm, errorsByField, formOf, type FormState } from './endpoint-model';
import { describedBy, Field } from './field';
import { useChoices } from './endpoint-choices';
import { AdvancedFields } from './endpoint-advanced';

export function EndpointForm({ id }: { id?: string }) {
  const creating = id === undefined;
  const [form, setForm] = useState<FormState>(emptyForm);
  const [original, setOriginal] = useState<FormState | null>(null);
  const loaded = creating || original !== null;
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const choices = useChoices();
  const writer = canWrite(useStore(session));

  useEffect(() => {
    if (creating) return;
    api<Endpoint>('GET', apiPath`/v2/serverless/${id}`)
      .then((e) => {
        setForm(formOf(e));
        setOriginal(formOf(e));
      })
      .catch(setFailure);
  }, [id]);

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const text = (key: keyof FormState) => ({
    value: form[key] as string,
    onInput: (e: Event) => set(key, (e.currentTarget as HTMLInputElement).value as never),
  });
  const toggle = (key: 'gpuPools' | 'networkVolumes' | 'dataCenterIds', value: string) =>
    set(key, form[key].includes(value) ? form[key].filter((v) => v !== value) : [...form[key], value]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const saved = creating
        ? await api<Endpoint>('POST', '/v2/serverless', bodyOf(form, true))
        : await api<Endpoint>('PATCH', apiPath`/v2/serverless/${id}`, changesOf(original!, form));
      navigate(`/endpoints/${saved.id}`);
    } catch (err) {
      const byField = err instanceof Problem ? errorsByField(err.errors) : {};
      setErrors(byField);
      if (!(err instanceof Problem) || err.errors.length === 0 || byField['']) setFailure(err);
      const first = Object.keys(byField).find((k) => k !== '');
      if (first) document.getElementById(`f-${first.replace(/\./g, '-')}`)?.focus();
    } finally {
      setBusy(false);
    }
  };

  if (!loaded) return <Page title="Edit endpoint">{failure ? <ErrorNote error={failure} /> : <p>Loading…</p>}</Page>;
  const unplaced = errors[''];
  return (
    <Page title={creating ? 'New endpoint' : `Edit ${form.name}`}>
      <form class="form" noValidate onSubmit={(e) => void submit(e)}>
        {failure !== undefined && <ErrorNote error={failure} />}
        {!failure && unplaced && <ErrorNote error={new Problem(400, 'Bad Request', unplaced.join('; '))} />}
        <div class="grid">
          <Field name="name" label="Name" errors={errors}>
            <input {...describedBy('name', errors)} {...text('name')} autocomplete="off" />
          </Field>
          {creating && (
            <Field name="type" label="Type" errors={errors}>
              <select
                {...describedBy('type', errors)}
                value={form.type}
                onChange={(e) => set('type', e.currentTarget.value as FormState['type'])}
              >
                <option value="QUEUE">Queue (jobs through /run and /runsync)</option>
                <option value="LOAD_BALANCER">Load balancer (HTTP straight to workers)</option>
              </select>
            </Field>
          )}
          <Field name="templateId" label="Template" errors={errors}>
            <select
              {...describedBy('templateId', errors)}
              value={form.templateId}
              onChange={(e) => set('templateId', e.currentTarget.value)}
            >
              <option value="">None</option>
              {choices.templates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          <Field name="image" label="Container image" errors={errors} hint="Required unless a template sets it">
            <input {...describedBy('image', errors, true)} {...text('image')} placeholder="registry/name:tag" autocomplete="off" />
          </Field>
          <Field name="args" label="Command" errors={errors} hint='A shell string, or {"entrypoint": [...], "cmd": [...]}'>
            <input {...describedBy('args', errors, true)} {...text('args')} autocomplete="off" spellcheck={false} />
          </Field>
          <Field name="registry" label="Registry credential" errors={errors}>
            <select {...describedBy('registry', errors)} value={form.registry} onChange={(e) => set('registry', e.currentTarget.value)}>
              <option value="">None (public image)</option>
              {choices.registries.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </Field>
        </div>

        <Field name="compute" label="Compute" errors={errors} group>
          <div class="inline">
            {(['cpu', 'gpu'] as const).map((c) => (
              <label key={c} class="check">
                {/* An endpoint's compute family is fixed once it is made. */}
                <input
                  type="radio"
                  name="compute"
                  checked={form.compute === c}
                  disabled={!creating && form.compute !== c}
                  onChange={() => set('compute', c)}
                />{' '}
                {c.toUpperCase()}
              </label>
            ))}
          </div>
        </Field>
        {form.compute === 'gpu' ? (
          <div class="grid">
            <Field name="gpu" label="GPU pools" errors={errors} group hint="Live availability on this deployment">
              <div class="choices">
                {choices.pools.map((p) => (
                  <label key={p.id} class="check">
                    <input type="checkbox" checked={form.gpuPools.includes(p.id)} onChange={() => toggle('gpuPools', p.id)} /> {p.id}{' '}
                    <span class="sub">
                      {p.gpus.join(', ')} · <span class={`avail avail-${p.availability}`}>{p.availability.toLowerCase()}</span>
                    </span>
                  </label>
                ))}
              </div>
            </Field>
            <Field name="gpu.count" label="GPUs per worker" errors={errors}>
              <input type="number" min="1" {...describedBy('gpu.count', errors)} {...text('gpuCount')} />
            </Field>
          </div>
        ) : (
          <div class="grid">
            <Field name="cpu" label="CPU flavour" errors={errors}>
              <select {...describedBy('cpu', errors)} value={form.cpuId} onChange={(e) => set('cpuId', e.currentTarget.value)}>
                {choices.cpus.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.id} — {c.name} ({c.group}){c.availability ? ` · ${c.availability.toLowerCase()}` : ''}
                  </option>
                ))}
              </select>
            </Field>
            <Field name="vcpuCount" label="vCPUs per worker" errors={errors}>
              <input type="number" min="2" {...describedBy('vcpuCount', errors)} {...text('vcpuCount')} />
            </Field>
          </div>
        )}

        <div class="grid">
          <Field name="scaling" label="Scaling" errors={errors}>
            <div class="inline">
              <select
                aria-label="Scaling type"
                value={form.scalingType}
                onChange={(e) => set('scalingType', e.currentTarget.value as FormState['scalingType'])}
              >
                <option value="QUEUE_DELAY">Queue delay (seconds)</option>
                <option value="REQUEST_COUNT">Request count (per worker)</option>
              </select>
              <input type="number" {...describedBy('scaling', errors)} aria-label="Scaling value" {...text('scalingValue')} />
            </div>
          </Field>
          <Field name="workers.min" label="Minimum workers" errors={errors}>
            <input type="number" min="0" {...describedBy('workers.min', errors)} {...text('workersMin')} />
          </Field>
          <Field name="workers.max" label="Maximum workers" errors={errors}>
            <input type="number" min="0" {...describedBy('workers.max', errors)} {...text('workersMax')} />
          </Field>
          <Field name="workers.idleTimeout" label="Idle timeout (seconds)" errors={errors}>
            <input type="number" min="1" {...describedBy('workers.idleTimeout', errors)} {...text('idleTimeout')} />
          </Field>
          <Field name="timeout" label="Execution timeout (seconds)" errors={errors}>
            <input type="number" min="1" {...describedBy('timeout', errors)} {...text('timeoutSeconds')} />
          </Field>
          <Field name="flashboot" label="FlashBoot" errors={errors}>
            <select
              {...describedBy('flashboot', errors)}
              value={form.flashboot}
              onChange={(e) => set('flashboot', e.currentTarget.value as FormState['flashboot'])}
            >
              <option value="OFF">Off</option>
              <option value="FLASHBOOT">FlashBoot</option>
              <option value="PRIORITY_FLASHBOOT">Priority FlashBoot</option>
            </select>
          </Field>
        </div>

        <Field name="env" label="Environment" errors={errors} hint="One NAME=value a line; {{ RUNPOD_SECRET_name }} refers to a secret">
          <textarea rows={4} spellcheck={false} {...describedBy('env', errors, true)} {...text('env')} />
        </Field>
        <Field name="networkVolumes" label="Network volumes" errors={errors} group>
          {choices.volumes.length === 0 && <p class="sub">No network volumes on this account.</p>}
          <div class="choices">
            {choices.volumes.map((v) => (
              <label key={v.id} class="check">
                <input type="checkbox" checked={form.networkVolumes.includes(v.id)} onChange={() => toggle('networkVolumes', v.id)} />{' '}
                {v.name}{' '}
                <span class="sub">
                  {v.dataCenterId} · {v.size} GB
                </span>
              </label>
            ))}
          </div>
        </Field>
        <AdvancedFields form={form} errors={errors} choices={choices} text={text} toggle={toggle} />
        <div class="actions">
          {!writer && <p class="hint">This key is read-only: it cannot save endpoints.</p>}
          <button type="submit" class="primary" disabled={busy || !writer}>
            {busy ? 'Saving…' : creating ? 'Create endpoint' : 'Save changes'}
          </button>
          <Link to={creating ? '/' : `/endpoints/${id}`} class="button">
            Cancel
          </Link>
        </div>
      </form>
    </Page>
  );
}
