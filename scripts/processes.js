// The machine's processes as /proc lists them, for the test runner's limits.
import { readdirSync, readFileSync } from 'node:fs';

/** Every process id in /proc; none where there is no /proc. */
export function processIds() {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** A file of /proc/PID, or undefined once the process is gone. */
export function procFile(pid, name) {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}
