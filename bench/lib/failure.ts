/** An expected way for the benchmark to fail (a server did not start, a response was not 2xx). */
export class BenchFailure extends Error {}
