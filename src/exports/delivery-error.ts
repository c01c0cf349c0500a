/** A delivery that did not happen, in words for the run's `error`; `retry` when worth another try. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}
