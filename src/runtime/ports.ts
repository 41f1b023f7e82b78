// What the runtime needs from the services above it, named here so it depends on these small
// shapes and never on the services themselves; the composition root passes the real ones.

/** Issues the credential a queue worker speaks the worker protocol with. */
export interface WorkerCredentialIssuer {
  create(endpointId: string): Promise<string>;
}

/** The queue's wake-ups: the runtime listens for new jobs and announces the ones it requeues. */
export interface QueueSignals {
  onQueued(listener: (endpointId: string) => void): void;
  jobsQueued(endpointId: string, count?: number): void;
  jobChanged(jobId: string): void;
}

/** A registry username and password, as an image pull presents them. */
export interface RegistryLogin {
  username: string;
  password: string;
  /** How logs name the login (they never show the username or password), e.g. "registry credential abc ('hub')". */
  label?: string;
}

/** The login an endpoint's image is pulled with; undefined when its `registry` names none. */
export interface RegistryLogins {
  loginFor(endpointId: string): Promise<RegistryLogin | undefined>;
}

/**
 * The env a worker starts with: an endpoint's env with its `{{ RUNPOD_SECRET_<name> }}` references
 * replaced by the account's secret values. Fails naming a secret that is gone, never a value.
 */
export interface SecretEnvironment {
  resolve(accountId: string, env: Readonly<Record<string, string>>): Promise<Record<string, string>>;
}
