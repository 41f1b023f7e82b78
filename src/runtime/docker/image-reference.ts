// What an image reference says about where it comes from: the registry a pull talks to, and
// whether its tag moves (`:latest`, or no tag at all), so a local copy may be out of date.

const DEFAULT_REGISTRY = 'docker.io';

/** The registry host of a reference: its first path component when that names a host. */
export function registryOf(image: string): string {
  const withoutDigest = image.split('@')[0] ?? image;
  const slash = withoutDigest.indexOf('/');
  if (slash < 0) return DEFAULT_REGISTRY;
  const first = withoutDigest.slice(0, slash);
  // Docker's own rule: a first component with a dot or a port, or "localhost", is a host.
  return first.includes('.') || first.includes(':') || first === 'localhost' ? first : DEFAULT_REGISTRY;
}

/** True when the reference names a tag that moves: `:latest` or none, and no digest. */
export function followsLatest(image: string): boolean {
  if (image.includes('@')) return false;
  const lastComponent = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastComponent.indexOf(':');
  return colon < 0 || lastComponent.slice(colon + 1) === 'latest';
}
