// The queue endpoint every benchmark makes: no image to run and no workers of Gantry's own (the
// benchmarks bring theirs), a queue delay long enough that nothing would scale it.
export function benchEndpoint(name: string) {
  return {
    name,
    type: 'QUEUE' as const,
    image: 'bench/noop',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'QUEUE_DELAY' as const, queueDelay: 60 },
    workers: { min: 0, max: 0 },
  };
}
