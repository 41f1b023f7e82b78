// Serverless workers as a metered source. Their transitions are seen where they happen: in the
// worker runtime of the leader, which starts, freezes, thaws and stops them. Each worker is two
// subjects, its compute (GPU or CPU, by type or flavor and count) and its container disk, with a
// timeline kept here until it is recorded to the worker's end.
import type { UsageChange, UsageSubject } from '../../domain/usage.js';
import type { WorkerUsageChange } from '../../runtime/worker-usage.js';
import type { MeteredSubject, UsageSource } from './usage-source.js';

interface Tracked {
  subject: UsageSubject;
  timeline: UsageChange[];
}

export class WorkerUsageSource implements UsageSource {
  readonly name = 'serverless workers';
  private readonly tracked = new Map<string, Tracked>();

  /** `onEnded` asks the meter for a pass, so a stopped worker's last interval is recorded soon. */
  constructor(private readonly onEnded: () => void = () => undefined) {}

  /** Feeds a runtime transition in (WorkerRuntime.usage.listen). */
  readonly observe = (change: WorkerUsageChange): void => {
    for (const subject of workerSubjects(change)) {
      let tracked = this.tracked.get(subject.subjectId);
      if (!tracked) {
        if (change.state === null) continue;
        tracked = { subject, timeline: [] };
        this.tracked.set(subject.subjectId, tracked);
      }
      // The disk is not frozen away: a frozen worker keeps its container disk.
      const state = subject.meter === 'DISK' && change.state === 'FROZEN' ? 'ACTIVE' : change.state;
      tracked.timeline.push({ at: change.at, state });
    }
    if (change.state === null) this.onEnded();
  };

  async subjects(): Promise<MeteredSubject[]> {
    return [...this.tracked.values()].map(({ subject, timeline }) => ({ subject, timeline: [...timeline] }));
  }

  recorded(subjectId: string, untilMs: number): void {
    const tracked = this.tracked.get(subjectId);
    if (!tracked) return;
    const last = tracked.timeline.at(-1);
    if (last?.state === null && untilMs >= last.at) {
      this.tracked.delete(subjectId);
      return;
    }
    // Keeps the change in force at untilMs and those after it.
    let inForce = 0;
    while (inForce + 1 < tracked.timeline.length && tracked.timeline[inForce + 1]!.at <= untilMs) inForce++;
    tracked.timeline.splice(0, inForce);
  }
}

function workerSubjects(change: WorkerUsageChange): UsageSubject[] {
  const owner = { accountId: change.accountId, family: 'SERVERLESS' as const, ownerId: change.endpointId };
  const { allocation } = change;
  const subjects: UsageSubject[] = [];
  if (allocation.gpuTypeId !== null) {
    subjects.push({
      ...owner,
      subjectId: `worker:${change.workerId}:gpu`,
      meter: 'GPU',
      resource: allocation.gpuTypeId,
      quantity: allocation.deviceIds.length,
    });
  } else if (allocation.cpuFlavor !== null) {
    subjects.push({
      ...owner,
      subjectId: `worker:${change.workerId}:cpu`,
      meter: 'CPU',
      resource: allocation.cpuFlavor,
      quantity: allocation.vcpuCount ?? 0,
    });
  }
  if (change.diskGb > 0) {
    subjects.push({ ...owner, subjectId: `worker:${change.workerId}:disk`, meter: 'DISK', resource: 'CONTAINER', quantity: change.diskGb });
  }
  return subjects;
}
