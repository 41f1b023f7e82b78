// Sign in with an API key: the server says what the key may do, and the key stays in this tab.
import { useState } from 'preact/hooks';
import { api, errorText, Problem } from '../api';
import { session } from '../state';

interface CurrentKey {
  name: string;
  permission: 'full' | 'read' | 'endpoints';
}

export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const info = await api<CurrentKey>('GET', '/v2/account/key', undefined, key.trim());
      session.set({ key: key.trim(), name: info.name, permission: info.permission });
    } catch (err) {
      setError(
        err instanceof Problem && err.status === 403
          ? 'This key may only use the queues of some endpoints; the console needs a full or read-only key.'
          : errorText(err),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="main">
      <form onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Gantry console</h1>
        <p>Sign in with an API key. It is kept in this browser tab only, and leaves when you sign out or close it.</p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
          required
        />
        {error && (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
