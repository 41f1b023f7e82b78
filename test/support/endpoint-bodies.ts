// The smallest valid queue endpoint a test creates through the API; `extra` overrides or adds fields.
export function queueEndpointBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    type: 'QUEUE',
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'QUEUE_DELAY', queueDelay: 2 },
    ...extra,
  };
}
