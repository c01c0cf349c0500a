export {
  COUNTRIES,
  COUNTRY_CODES,
  currencyInYear,
  currentCurrency,
  type Country,
} from './countries.js';
export { JOBS, JOB_SLUGS, LEVELS, iscoMajorGroup, type Job, type Level } from './jobs.js';
export { catalogRoutes, COUNTRY_LIST, JOB_LIST } from './routes.js';
