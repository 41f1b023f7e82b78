// The pod part of the Store port. A pod's configuration is kept whole (as JSON); its status,
// placement and the times of its last start and last status change are columns, so a meter can
// read which pods hold resources and since when without knowing the configuration.
import type { PodPlacement, PodSpec, PodStatus } from '../domain/pod.js';

export interface PodRecord {
  id: string;
  accountId: string;
  spec: PodSpec;
  status: PodStatus;
  /** Set while the pod holds GPUs or vCPUs (PROVISIONING, STARTING, RUNNING); null otherwise. */
  placement: PodPlacement | null;
  /** Why the pod is in ERROR, or what its last exit was; null when nothing went wrong. */
  message: string | null;
  /** Grows with every write; updates name the revision they read. */
  revision: number;
  createdAt: string;
  updatedAt: string;
  lastStartedAt: string | null;
  lastStatusChange: string;
}

/** What a meter reads of a pod holding resources. */
export interface PodHolding {
  id: string;
  accountId: string;
  status: PodStatus;
  placement: PodPlacement;
  lastStartedAt: string | null;
  lastStatusChange: string;
}

export interface PodStore {
  insert(pod: PodRecord): Promise<void>;
  /** The account's pod; another account's id is unknown. */
  get(accountId: string, id: string): Promise<PodRecord | undefined>;
  /** Oldest first. */
  list(accountId: string): Promise<PodRecord[]>;
  /** Every pod of every account: for reconciling containers when Gantry starts. */
  listAll(): Promise<PodRecord[]>;
  /** Writes the record if its stored revision is still `expectedRevision`; false when another write came first or it is gone. */
  update(pod: PodRecord, expectedRevision: number): Promise<boolean>;
  delete(accountId: string, id: string): Promise<boolean>;
  /** Pods in PROVISIONING, STARTING or RUNNING with their placement, oldest first. */
  holdingResources(): Promise<PodHolding[]>;
}
