// CUDA versions are `major.minor` and compare numerically: 12.11 is above 12.2.

export function compareCudaVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor !== bMajor ? aMajor - bMajor : aMinor - bMinor;
}

/** Whether a machine's CUDA version satisfies an exact set (empty = any) and a floor (null = none). */
export function cudaVersionAccepted(version: string, allowed: readonly string[], minimum: string | null): boolean {
  if (allowed.length > 0 && !allowed.includes(version)) return false;
  return minimum === null || compareCudaVersions(version, minimum) >= 0;
}
