import { PRODUCT_NAME } from '../lib/product-name.js';
import type { LicenseRegistry } from '../licensing/index.js';

/** The product's own name, on every page a host that is not a licensee's serves. */
export { PRODUCT_NAME };

/** Whose name a page carries: ours, or the licensee's on a host mapped to its licence. */
export interface Brand {
  readonly name: string;
  /** True on a licensee's host: no page names this service. */
  readonly licensed: boolean;
}

export const OUR_BRAND: Brand = Object.freeze({ name: PRODUCT_NAME, licensed: false });

/** The brand of a request's Host header. */
export function brandOf(licenses: LicenseRegistry, host: string | undefined): Brand {
  const license = licenses.licenseOfHost(host);
  return license === undefined ? OUR_BRAND : { name: license.licensee, licensed: true };
}
