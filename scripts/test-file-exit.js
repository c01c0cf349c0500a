// Loaded into each test file's process by scripts/run-tests.js. A file whose tests have all
// finished ends when its event loop is empty; one that something keeps open (a socket, a timer,
// a child process) would never end and hold the whole run. Once the file's tests have finished,
// this gives it GRACE_MS to end by itself (its results have long reached the runner by then),
// then names what is still open and ends it with the exit code its tests set.
import { getActiveResourcesInfo } from 'node:process';

const GRACE_MS = 30_000;

// Only a test file's own process: the processes a test starts with the same node flags (the
// embedded database's initialization) are not test files.
if (
  process.env.NODE_TEST_CONTEXT !== undefined &&
  /\.test\.[cm]?[jt]s$/.test(process.argv[1] ?? '')
) {
  const { after } = await import('node:test');
  after(() => {
    setTimeout(() => {
      process.stderr.write(
        `${process.argv[1]}: its tests finished ${GRACE_MS / 1000} s ago, but it was still held open by ${getActiveResourcesInfo().join(', ')}; ended it.\n`,
      );
      process.exit();
    }, GRACE_MS).unref();
  });
}
