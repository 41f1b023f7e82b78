// A pod-shaped metered source, as a pod store would feed one: each pod costs from its start to its
// stop, its GPUs (or vCPUs) and its disk as two subjects. It shows what a source takes.
import type { UsageChange, UsageSubject } from '../../src/domain/usage.js';
import type { MeteredSubject, UsageSource } from '../../src/services/metering/usage-source.js';

export interface PodRow {
  id: string;
  accountId: string;
  gpuTypeId: string | null;
  gpuCount: number;
  cpuFlavor: string | null;
  vcpuCount: number;
  diskGb: number;
  startedAt: number;
  stoppedAt: number | null;
}

export class PodUsageSource implements UsageSource {
  readonly name = 'pods';

  constructor(private readonly pods: () => Promise<PodRow[]>) {}

  async subjects(): Promise<MeteredSubject[]> {
    return (await this.pods()).flatMap((pod) => {
      const owner = { accountId: pod.accountId, family: 'POD' as const, ownerId: pod.id };
      const compute: UsageSubject = pod.gpuTypeId
        ? { ...owner, subjectId: `pod:${pod.id}:gpu`, meter: 'GPU', resource: pod.gpuTypeId, quantity: pod.gpuCount }
        : { ...owner, subjectId: `pod:${pod.id}:cpu`, meter: 'CPU', resource: pod.cpuFlavor ?? '', quantity: pod.vcpuCount };
      const disk: UsageSubject = { ...owner, subjectId: `pod:${pod.id}:disk`, meter: 'DISK', resource: 'CONTAINER', quantity: pod.diskGb };
      const timeline: UsageChange[] = [{ at: pod.startedAt, state: 'ACTIVE' }];
      if (pod.stoppedAt !== null) timeline.push({ at: pod.stoppedAt, state: null });
      return [compute, disk].map((subject) => ({ subject, timeline }));
    });
  }
}
