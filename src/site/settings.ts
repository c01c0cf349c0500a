import type { Config } from '../config/index.js';
import type { SiteDeps } from './routes.js';

/** What the public pages take from the configuration. */
export function siteSettings(
  config: Config,
): Pick<SiteDeps, 'publicBaseUrl' | 'legal' | 'contacts'> {
  return {
    publicBaseUrl: config.publicBaseUrl?.replace(/\/$/, ''),
    legal: { seller: config.seller, supportEmail: config.supportEmail, files: config.legalFiles },
    contacts: {
      supportEmail: config.supportEmail,
      salesEmail: config.salesEmail,
      communityUrl: config.communityUrl,
    },
  };
}
