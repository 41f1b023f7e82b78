// Which endpoint each worker started here belongs to, kept past the worker's end for as long as
// its logs may be: a worker's logs are read through its own endpoint only. Bounded: by the time
// the oldest entries go, the provider dropped their logs long ago.
const MAX_REMEMBERED_WORKERS = 10_000;

export class WorkerOwners {
  private readonly endpointOf = new Map<string, string>();

  remember(workerId: string, endpointId: string): void {
    this.endpointOf.set(workerId, endpointId);
    if (this.endpointOf.size > MAX_REMEMBERED_WORKERS) {
      const oldest = this.endpointOf.keys().next().value;
      if (oldest !== undefined) this.endpointOf.delete(oldest);
    }
  }

  owns(endpointId: string, workerId: string): boolean {
    return this.endpointOf.get(workerId) === endpointId;
  }
}
