import type { CountryMeans } from './country-means.js';
import type { Dispersion } from './dispersion.js';
import type { GroupTables } from './group-tables.js';
import type { JobRatioModel, Sigmas } from './job-ratio-model.js';
import type { LevelProfile } from './level-profile.js';
import type { OccupationEvidence } from './occupation-evidence.js';
import type { OccupationProfile } from './occupation-profile.js';

/** Every intermediate table of one release's model: what the explanation and validation read. */
export interface Model {
  readonly countryMeans: CountryMeans;
  /** Job ratios in `jobRatio` are the final ones; the §4.2–4.4 prior is in `prior`. */
  readonly occupations: OccupationProfile;
  readonly prior: OccupationProfile['jobRatio'];
  readonly evidence: OccupationEvidence;
  readonly jobModel: JobRatioModel;
  readonly groupTables: GroupTables;
  readonly spreadFactor: ReadonlyMap<string, number>;
  /** σ of each (country, job) cell before the minimum-wage floor: the fit's input. */
  readonly sigma: Sigmas;
  readonly levels: LevelProfile;
  readonly dispersion: Dispersion;
}
