/**
 * The 21 job categories, each mapped to one ISCO-08 unit group (4-digit code) and its major
 * group (first digit). They span every ISCO major group and the main sectors of the economy.
 */
export interface Job {
  readonly slug: string;
  readonly title: string;
  readonly iscoCode: string;
  readonly iscoTitle: string;
  readonly sector: string;
}

export const JOBS: readonly Job[] = Object.freeze([
  {
    slug: 'marketing-manager',
    title: 'Marketing manager',
    iscoCode: '1221',
    iscoTitle: 'Sales and marketing managers',
    sector: 'business services',
  },
  {
    slug: 'software-engineer',
    title: 'Software engineer',
    iscoCode: '2512',
    iscoTitle: 'Software developers',
    sector: 'information and communication',
  },
  {
    slug: 'civil-engineer',
    title: 'Civil engineer',
    iscoCode: '2142',
    iscoTitle: 'Civil engineers',
    sector: 'construction',
  },
  {
    slug: 'physician',
    title: 'Physician (general practitioner)',
    iscoCode: '2211',
    iscoTitle: 'Generalist medical practitioners',
    sector: 'health',
  },
  {
    slug: 'nurse',
    title: 'Nurse',
    iscoCode: '2221',
    iscoTitle: 'Nursing professionals',
    sector: 'health',
  },
  {
    slug: 'secondary-teacher',
    title: 'Secondary school teacher',
    iscoCode: '2330',
    iscoTitle: 'Secondary education teachers',
    sector: 'education',
  },
  {
    slug: 'accountant',
    title: 'Accountant',
    iscoCode: '2411',
    iscoTitle: 'Accountants',
    sector: 'finance',
  },
  {
    slug: 'financial-analyst',
    title: 'Financial analyst',
    iscoCode: '2413',
    iscoTitle: 'Financial analysts',
    sector: 'finance',
  },
  {
    slug: 'hr-specialist',
    title: 'HR specialist',
    iscoCode: '2423',
    iscoTitle: 'Personnel and careers professionals',
    sector: 'business services',
  },
  {
    slug: 'it-support-technician',
    title: 'IT support technician',
    iscoCode: '3512',
    iscoTitle: 'Information and communications technology user support technicians',
    sector: 'information and communication',
  },
  {
    slug: 'administrative-assistant',
    title: 'Administrative assistant',
    iscoCode: '4110',
    iscoTitle: 'General office clerks',
    sector: 'business services',
  },
  {
    slug: 'customer-service-agent',
    title: 'Customer service agent',
    iscoCode: '4222',
    iscoTitle: 'Contact centre information clerks',
    sector: 'business services',
  },
  {
    slug: 'shop-sales-assistant',
    title: 'Shop sales assistant',
    iscoCode: '5223',
    iscoTitle: 'Shop sales assistants',
    sector: 'retail',
  },
  {
    slug: 'chef',
    title: 'Chef / cook',
    iscoCode: '5120',
    iscoTitle: 'Cooks',
    sector: 'hospitality',
  },
  {
    slug: 'waiter',
    title: 'Waiter',
    iscoCode: '5131',
    iscoTitle: 'Waiters',
    sector: 'hospitality',
  },
  {
    slug: 'care-worker',
    title: 'Care worker',
    iscoCode: '5322',
    iscoTitle: 'Home-based personal care workers',
    sector: 'health',
  },
  {
    slug: 'crop-farmer',
    title: 'Crop farmer',
    iscoCode: '6111',
    iscoTitle: 'Field crop and vegetable growers',
    sector: 'agriculture',
  },
  {
    slug: 'electrician',
    title: 'Electrician',
    iscoCode: '7411',
    iscoTitle: 'Building and related electricians',
    sector: 'construction',
  },
  {
    slug: 'motor-mechanic',
    title: 'Motor vehicle mechanic',
    iscoCode: '7231',
    iscoTitle: 'Motor vehicle mechanics and repairers',
    sector: 'trades',
  },
  {
    slug: 'truck-driver',
    title: 'Truck driver',
    iscoCode: '8332',
    iscoTitle: 'Heavy truck and lorry drivers',
    sector: 'logistics',
  },
  {
    slug: 'cleaner',
    title: 'Cleaner',
    iscoCode: '9112',
    iscoTitle: 'Cleaners and helpers in offices, hotels and other establishments',
    sector: 'facility services',
  },
]);

export const JOB_SLUGS: readonly string[] = Object.freeze(JOBS.map((j) => j.slug).sort());

/** ISCO-08 major group (1–9) of a job, from the first digit of its unit group. */
export function iscoMajorGroup(job: Job): number {
  return Number(job.iscoCode[0]);
}

export const LEVELS = Object.freeze(['junior', 'mid', 'senior', 'lead'] as const);
export type Level = (typeof LEVELS)[number];
