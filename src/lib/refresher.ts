/**
 * Runs an in-memory view's re-read (`read`) on demand: calls during a read get one more read
 * after it (never more than one waiting), so a burst of change notices costs at most two reads
 * and nobody is answered from a read that began before their change. The periodic re-read is a
 * job of the role that keeps the view (lib/job.ts).
 */
export class Refresher {
  readonly #read: () => Promise<void>;
  #refreshing: Promise<void> | undefined;
  #again: Promise<void> | undefined;

  constructor(read: () => Promise<void>) {
    this.#read = read;
  }

  refresh(): Promise<void> {
    if (this.#refreshing === undefined) {
      this.#refreshing = this.#read().finally(() => (this.#refreshing = undefined));
      return this.#refreshing;
    }
    this.#again ??= this.#refreshing
      .catch(() => undefined)
      .then(() => {
        this.#again = undefined;
        return this.refresh();
      });
    return this.#again;
  }
}
