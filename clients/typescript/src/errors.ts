/** An RFC 9457 problem document as the API answers it. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  /** The stable machine code: `FEATURE_NOT_IN_PLAN`, `RATE_LIMITED`, `INVALID_PARAMETER`, … */
  code?: string;
  request_id?: string;
  /** The lowest plan that has the feature (403 FEATURE_NOT_IN_PLAN). */
  required_plan?: string | null;
  /** Seconds until the limit resets (429) or the dependency may be back (503). */
  retry_after?: number;
  invalid_params?: { name: string; reason: string; allowed?: (string | number)[] }[];
  [extension: string]: unknown;
}

/** An error answer of the API, typed: its status, machine code and the plan that would allow it. */
export class SalaryApiError extends Error {
  override readonly name = 'SalaryApiError';
  readonly status: number;
  readonly code: string;
  readonly requiredPlan: string | null;
  readonly retryAfter: number | null;
  readonly requestId: string | null;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${problem.status}`);
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code ?? `HTTP_${problem.status}`;
    this.requiredPlan = problem.required_plan ?? null;
    this.retryAfter = typeof problem.retry_after === 'number' ? problem.retry_after : null;
    this.requestId = problem.request_id ?? null;
  }
}

/** The error of a response that is not a success (its problem document, or what stands for one). */
export async function errorOf(response: Response): Promise<SalaryApiError> {
  const text = await response.text();
  let problem: Problem = { status: response.status, detail: text.slice(0, 500) };
  if (/json/.test(response.headers.get('content-type') ?? '')) {
    try {
      problem = { ...(JSON.parse(text) as Problem), status: response.status };
    } catch {
      // Not JSON after all: the text stands as the detail.
    }
  }
  return new SalaryApiError(problem);
}
