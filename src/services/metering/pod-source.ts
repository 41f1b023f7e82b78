// Pods as a metered source, read from their store rows on every pass, so whichever replica leads
// meters them the same. A pod is up to three subjects: its GPUs (type × count) or vCPUs (flavor ×
// count) and its container disk, costing while the container runs (from `lastStartedAt` to the
// status change that ended the run), and its persistent volume, costing from creation until
// terminated: ACTIVE (the running rate) while the pod runs, FROZEN (the stopped rate) otherwise.
// A row describes the current or last run only, so the pod service settles a pod's subjects
// before a write that forgets a run (a new start, a restart), before a resize and at terminate.
import type { PodRecord } from '../../store/pod-store.js';
import type { Store } from '../../store/store.js';
import { POD_VOLUME, type UsageChange, type UsageSubject } from '../../domain/usage.js';
import type { MeteredSubject, UsageSource } from './usage-source.js';

export class PodUsageSource implements UsageSource {
  readonly name = 'pods';

  constructor(private readonly store: Pick<Store, 'pods'>) {}

  async subjects(): Promise<MeteredSubject[]> {
    return (await this.store.pods.listAll()).flatMap((pod) => podMetered(pod));
  }
}

/** The pod's subjects with their timelines, as its row stands. */
export function podMetered(pod: PodRecord): MeteredSubject[] {
  const owner = { accountId: pod.accountId, family: 'POD' as const, ownerId: pod.id };
  const { spec } = pod;
  const createdAt = Date.parse(pod.createdAt);
  const startedAt = pod.lastStartedAt === null ? null : Math.max(createdAt, Date.parse(pod.lastStartedAt));
  const running = pod.status === 'RUNNING';
  const endedAt = startedAt === null || running ? null : Math.max(startedAt, Date.parse(pod.lastStatusChange));
  const run: UsageChange[] =
    startedAt === null ? [] : [{ at: startedAt, state: 'ACTIVE' }, ...(endedAt === null ? [] : [{ at: endedAt, state: null }])];
  const subjects: MeteredSubject[] = [];
  const compute: UsageSubject | undefined = spec.gpu
    ? { ...owner, subjectId: `pod:${pod.id}:gpu`, meter: 'GPU', resource: spec.gpu.typeId, quantity: spec.gpu.count }
    : spec.cpu
      ? { ...owner, subjectId: `pod:${pod.id}:cpu`, meter: 'CPU', resource: spec.cpu.flavorId, quantity: spec.cpu.vcpuCount }
      : undefined;
  if (compute) subjects.push({ subject: compute, timeline: run });
  if (spec.disk > 0) {
    subjects.push({
      subject: { ...owner, subjectId: `pod:${pod.id}:disk`, meter: 'DISK', resource: 'CONTAINER', quantity: spec.disk },
      timeline: run,
    });
  }
  if (spec.persistent) {
    const timeline: UsageChange[] = [{ at: createdAt, state: 'FROZEN' }];
    if (startedAt !== null) timeline.push({ at: startedAt, state: 'ACTIVE' });
    if (endedAt !== null) timeline.push({ at: endedAt, state: 'FROZEN' });
    // Only a pod being answered as terminated has this status (its row is gone): its volume went with it.
    if (pod.status === 'TERMINATED')
      timeline.push({ at: Math.max(createdAt, endedAt ?? createdAt, Date.parse(pod.lastStatusChange)), state: null });
    subjects.push({
      subject: { ...owner, subjectId: `pod:${pod.id}:volume`, meter: 'VOLUME', resource: POD_VOLUME, quantity: spec.persistent.size },
      timeline,
    });
  }
  return subjects;
}
