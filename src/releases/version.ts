/**
 * Orders release versions `YYYY.MM.N` (an optional suffix after the numbers is ignored):
 * negative when `a` is older than `b`, 0 when equal or when either is not such a version.
 */
export function compareReleaseVersions(a: string, b: string): number {
  const parts = (v: string) => /^(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number);
  const pa = parts(a);
  const pb = parts(b);
  if (pa === undefined || pb === undefined) return 0;
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
