// The webhook-secret part of the Store port: each endpoint's signing secret, already sealed by
// the secrets box. The store keeps and returns it as opaque text.

export interface WebhookSecretStore {
  /** The endpoint's sealed secret; undefined when it has none yet or the endpoint is unknown. */
  get(endpointId: string): Promise<string | undefined>;
  /**
   * Stores the secret unless the endpoint has one already, in one statement so that two processes
   * making one at once keep the same. Returns the secret the endpoint has now; undefined when the
   * endpoint is unknown.
   */
  setIfMissing(endpointId: string, sealed: string): Promise<string | undefined>;
  /** Replaces the secret; false when the endpoint is unknown. */
  replace(endpointId: string, sealed: string): Promise<boolean>;
}
