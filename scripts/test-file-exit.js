// Loaded into each test file's process by scripts/run-tests.js, once the file's tests have
// finished (a root `after` hook):
// - A process whose event loop is empty exits at its 'exit' event with its tests' exit code, its
//   results already written. node's own clean-up after that event can spin forever (seen: a test
//   file at 100 % CPU in node::Environment::CleanupHandles, waiting on a request that never
//   completes, after its tests had passed).
// - A process that something keeps open (a socket, a timer, a child process) would never reach
//   that event. It gets GRACE_MS to end by itself; then what holds it is named, the processes it
//   started are killed (a server left running would keep its database connections for the rest
//   of the run), and it exits with its tests' exit code.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuUsage, getActiveResourcesInfo } from 'node:process';
import { processIds, procFile } from './processes.js';

const GRACE_MS = 30_000;

/**
 * CPU ms of the processes this one started and has waited for (and theirs in turn): the CLI, a
 * server, a browser. /proc/self/stat's cutime and cstime, in clock ticks of 10 ms; 0 without /proc.
 */
function childrenCpuMs() {
  const stat = procFile('self', 'stat');
  if (stat === undefined) return 0;
  // The fields after the command's closing parenthesis start with the state (field 3); cutime
  // and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * How long this process's main thread was ready to run but waited for a CPU (the machine busy
 * with other work), in ms: /proc/self/schedstat's second field, in ns; 0 without /proc.
 */
function runQueueMs() {
  const stat = procFile('self', 'schedstat');
  return stat === undefined ? 0 : Math.round(Number(stat.split(' ')[1]) / 1e6);
}

/** The processes whose parent is this one. */
function children() {
  return processIds().filter((pid) => {
    const stat = procFile(pid, 'stat');
    if (stat === undefined) return false;
    // The fields after the command's closing parenthesis: state, then the parent's pid.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
  });
}

// Only a test file's own process: the processes a test starts with the same node flags (the
// embedded database's initialization) are not test files.
if (
  process.env.NODE_TEST_CONTEXT !== undefined &&
  /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? '')
) {
  const { after } = await import('node:test');
  // Read at start: a test may change its own environment.
  const timings = process.env.SALARY_API_TEST_TIMINGS;
  after(() => {
    // The file's wall and CPU time (its set-up included), the CPU time of the processes it
    // started, for the run's list of slowest files, and its time waiting for a CPU.
    if (timings !== undefined) {
      const { user, system } = cpuUsage();
      try {
        writeFileSync(
          join(timings, `${process.pid}-${randomBytes(4).toString('hex')}.json`),
          JSON.stringify({
            file: process.argv[1],
            wallMs: Math.round(process.uptime() * 1000),
            cpuMs: Math.round((user + system) / 1000),
            childCpuMs: childrenCpuMs(),
            runQueueMs: runQueueMs(),
          }),
        );
      } catch {
        // the run is gone (its directory with it)
      }
    }
    // Registered last, so every other listener of the file has run; exit() inside the 'exit'
    // event ends the process at once with this code.
    process.on('exit', (code) => process.exit(code));
    setTimeout(() => {
      const started = children();
      process.stderr.write(
        `${process.argv[1]}: its tests finished ${GRACE_MS / 1000} s ago, but it was still held open by ${getActiveResourcesInfo().join(', ')}${started.length > 0 ? ` (processes it started: ${started.join(', ')}, now killed)` : ''}; ended it.\n`,
      );
      for (const pid of started) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      process.exit();
    }, GRACE_MS).unref();
  });
}
