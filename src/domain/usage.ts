// Usage records: what was metered, for how long. An interval [fromMs, toMs) of one subject (a
// worker's compute, a worker's container disk, a network volume, a pod...) carries the rate
// dimensions it is priced by; prices are applied when billing is read (services/billing).

/** The resource family a subject bills under; each has its own billing route. */
export type UsageFamily = 'SERVERLESS' | 'POD' | 'NETWORK_VOLUME';

/**
 * What a subject consumes: GPU (quantity = GPU count, resource = GPU type), CPU (quantity = vCPUs,
 * resource = CPU flavor), DISK (container disk; quantity = GB), VOLUME (quantity = GB, resource = tier).
 */
export type UsageMeter = 'GPU' | 'CPU' | 'DISK' | 'VOLUME';

/**
 * ACTIVE is billed at the running rate; FROZEN at the frozen rate: a FlashBoot-paused worker's
 * compute, or the persistent volume of a pod that is not running (the stopped-pod volume price).
 */
export type UsageState = 'ACTIVE' | 'FROZEN';

/** The constant part of a metered subject: who pays, under which id, at which rate dimensions. */
export interface UsageSubject {
  /** Unique across all sources, e.g. "worker:<id>:gpu" or "volume:<id>". */
  subjectId: string;
  accountId: string;
  family: UsageFamily;
  /** The id billing groups by: the endpoint, pod or network volume. */
  ownerId: string;
  meter: UsageMeter;
  /** GPU type id, CPU flavor id, storage tier, or "CONTAINER" for container disk. */
  resource: string;
  quantity: number;
}

/** The resource a pod's persistent volume is metered under: priced by state (running or stopped). */
export const POD_VOLUME = 'PERSISTENT';

export interface UsageInterval extends UsageSubject {
  fromMs: number;
  toMs: number;
  state: UsageState;
}

/** A state a subject entered at a moment; a subject's timeline is a list of them, in time order. */
export interface UsageChange {
  at: number;
  /** null: the subject ended (stopped, deleted) and is metered no more. */
  state: UsageState | null;
  /** Set when the subject's dimensions changed at that moment (a volume that grew). */
  quantity?: number;
}

/**
 * Cuts a subject's timeline into the intervals to record after `fromMs` and before `untilMs`.
 * Changes before fromMs set the state it starts in; the result is contiguous from fromMs and stops
 * at the subject's end. Answers [] when nothing is metered in that span.
 */
export function intervalsBetween(
  subject: UsageSubject,
  timeline: readonly UsageChange[],
  fromMs: number,
  untilMs: number,
): UsageInterval[] {
  const intervals: UsageInterval[] = [];
  let state: UsageState | null = null;
  let quantity = subject.quantity;
  let cursor = fromMs;
  const close = (at: number) => {
    const to = Math.min(at, untilMs);
    if (state !== null && to > cursor) intervals.push({ ...subject, quantity, state, fromMs: cursor, toMs: to });
    cursor = Math.max(cursor, to);
  };
  for (const change of timeline) {
    if (change.at > fromMs) close(change.at);
    if (change.at >= untilMs) break;
    state = change.state;
    if (change.quantity !== undefined) quantity = change.quantity;
    if (state === null && change.at >= fromMs) return intervals;
  }
  close(untilMs);
  return intervals;
}
