// Files shipped beside the code (migrations, the default catalog) are read from the source tree,
// so the same paths work when running the TypeScript directly and the built JavaScript.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the gantry package root');
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();

export function shippedFile(...parts: string[]): string {
  return join(PACKAGE_ROOT, 'src', ...parts);
}
