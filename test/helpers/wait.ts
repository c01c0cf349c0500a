/**
 * Polls `check` every `everyMs` until it holds; the time it took, in ms. Throws when it still
 * does not hold after `timeoutMs`: tests wait on what they need, never for a fixed time.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  everyMs = 5,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
