/**
 * The 21 job categories, each defined by the ISCO-08 unit groups (4-digit codes) it covers; the
 * first is its main unit group, and its first digit the major group. They span every ISCO major
 * group and the main sectors of the economy. docs/data.md §3 maps every source row to these
 * definitions and names the gap where a row is broader or narrower.
 */
export interface Job {
  readonly slug: string;
  readonly title: string;
  /** Main ISCO-08 unit group. */
  readonly iscoCode: string;
  readonly iscoTitle: string;
  /** Every ISCO-08 unit group the job covers (the main one first). */
  readonly iscoCodes: readonly string[];
  readonly sector: string;
}

export const JOBS: readonly Job[] = Object.freeze([
  {
    slug: 'marketing-manager',
    title: 'Marketing manager',
    iscoCode: '1221',
    iscoTitle: 'Sales and marketing managers',
    iscoCodes: ['1221'],
    sector: 'business services',
  },
  {
    slug: 'software-engineer',
    title: 'Software engineer',
    iscoCode: '2512',
    iscoTitle: 'Software developers',
    iscoCodes: ['2512', '2514'],
    sector: 'information and communication',
  },
  {
    slug: 'civil-engineer',
    title: 'Civil engineer',
    iscoCode: '2142',
    iscoTitle: 'Civil engineers',
    iscoCodes: ['2142'],
    sector: 'construction',
  },
  {
    slug: 'physician',
    title: 'Physician (medical doctor)',
    iscoCode: '2211',
    iscoTitle: 'Medical doctors (generalist and specialist medical practitioners)',
    iscoCodes: ['2211', '2212'],
    sector: 'health',
  },
  {
    slug: 'nurse',
    title: 'Nurse',
    iscoCode: '2221',
    iscoTitle: 'Nursing professionals',
    iscoCodes: ['2221'],
    sector: 'health',
  },
  {
    slug: 'secondary-teacher',
    title: 'Secondary school teacher',
    iscoCode: '2330',
    iscoTitle: 'Secondary education teachers',
    iscoCodes: ['2330'],
    sector: 'education',
  },
  {
    slug: 'accountant',
    title: 'Accountant',
    iscoCode: '2411',
    iscoTitle: 'Accountants',
    iscoCodes: ['2411'],
    sector: 'finance',
  },
  {
    slug: 'financial-analyst',
    title: 'Financial analyst',
    iscoCode: '2413',
    iscoTitle: 'Financial analysts',
    iscoCodes: ['2413'],
    sector: 'finance',
  },
  {
    slug: 'hr-specialist',
    title: 'HR specialist',
    iscoCode: '2423',
    iscoTitle: 'Personnel and careers professionals',
    iscoCodes: ['2423'],
    sector: 'business services',
  },
  {
    slug: 'it-support-technician',
    title: 'IT support technician',
    iscoCode: '3512',
    iscoTitle: 'Information and communications technology user support technicians',
    iscoCodes: ['3512'],
    sector: 'information and communication',
  },
  {
    slug: 'administrative-assistant',
    title: 'Administrative assistant',
    iscoCode: '4110',
    iscoTitle: 'General office clerks',
    iscoCodes: ['4110'],
    sector: 'business services',
  },
  {
    slug: 'customer-service-agent',
    title: 'Customer service agent',
    iscoCode: '4222',
    iscoTitle: 'Contact centre information clerks',
    iscoCodes: ['4222'],
    sector: 'business services',
  },
  {
    slug: 'shop-sales-assistant',
    title: 'Shop sales assistant',
    iscoCode: '5223',
    iscoTitle: 'Shop sales assistants',
    iscoCodes: ['5223'],
    sector: 'retail',
  },
  {
    slug: 'chef',
    title: 'Chef / cook',
    iscoCode: '5120',
    iscoTitle: 'Cooks',
    iscoCodes: ['5120'],
    sector: 'hospitality',
  },
  {
    slug: 'waiter',
    title: 'Waiter',
    iscoCode: '5131',
    iscoTitle: 'Waiters',
    iscoCodes: ['5131'],
    sector: 'hospitality',
  },
  {
    slug: 'care-worker',
    title: 'Care worker',
    iscoCode: '5322',
    iscoTitle:
      'Personal care workers in health services (home-based care workers and health care assistants)',
    iscoCodes: ['5322', '5321'],
    sector: 'health',
  },
  {
    slug: 'crop-farmer',
    title: 'Crop farmer',
    iscoCode: '6111',
    iscoTitle: 'Field crop and vegetable growers',
    iscoCodes: ['6111'],
    sector: 'agriculture',
  },
  {
    slug: 'electrician',
    title: 'Electrician',
    iscoCode: '7411',
    iscoTitle: 'Building and related electricians',
    iscoCodes: ['7411'],
    sector: 'construction',
  },
  {
    slug: 'motor-mechanic',
    title: 'Motor vehicle mechanic',
    iscoCode: '7231',
    iscoTitle: 'Motor vehicle mechanics and repairers',
    iscoCodes: ['7231'],
    sector: 'trades',
  },
  {
    slug: 'truck-driver',
    title: 'Truck driver',
    iscoCode: '8332',
    iscoTitle: 'Heavy truck and lorry drivers',
    iscoCodes: ['8332'],
    sector: 'logistics',
  },
  {
    slug: 'cleaner',
    title: 'Cleaner',
    iscoCode: '9112',
    iscoTitle: 'Cleaners and helpers in offices, hotels and other establishments',
    iscoCodes: ['9112'],
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
