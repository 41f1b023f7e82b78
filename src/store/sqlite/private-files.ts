// The SQLite database holds endpoint environment values and webhook URLs with their tokens, so
// its directory is created 0700 and the file 0600 whatever the umask. SQLite gives the -wal and
// -shm files the database file's own mode, so creating the file first covers them too.
import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const PRIVATE_DIRECTORY_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/** Creates the database's directory and an empty database file, private to this user, if missing. */
export function preparePrivateDatabaseFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
}

/** One line per path (directory, database, -wal, -shm) that other users may read or enter. */
export function widePermissions(file: string): string[] {
  const paths = [dirname(file), file, `${file}-wal`, `${file}-shm`];
  return paths.flatMap((path) => {
    if (!existsSync(path)) return [];
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) === 0) return [];
    return [`${path} is ${mode.toString(8).padStart(4, '0')}`];
  });
}
