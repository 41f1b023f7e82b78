// Errors meant for the client, raised anywhere below the HTTP layer and rendered by it.
import { titleFor } from './status-titles.js';

export interface ProblemBody {
  title: string;
  status: number;
  detail: string;
  errors?: string[];
}

/** An error meant for the client: its status, detail and per-field failures are sent as they are. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: string[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string, errors?: string[], headers: Record<string, string> = {}) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors && errors.length > 0 ? errors : undefined;
    this.headers = headers;
  }

  toBody(): ProblemBody {
    const body: ProblemBody = { title: titleFor(this.status), status: this.status, detail: this.message };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const badRequest = (detail: string, errors?: string[]) => new ApiError(400, detail, errors);
export const unauthorized = (detail: string) => new ApiError(401, detail);
export const forbidden = (detail: string) => new ApiError(403, detail);
export const notFound = (detail: string) => new ApiError(404, detail);
export const conflict = (detail: string) => new ApiError(409, detail);
export const unprocessable = (detail: string, errors?: string[]) => new ApiError(422, detail, errors);

/** Collects rule violations (each `path: message`) so one response can list all of them. */
export class Violations {
  private readonly items: string[] = [];

  add(path: string, message: string): void {
    this.items.push(path ? `${path}: ${message}` : message);
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  list(): string[] {
    return [...this.items];
  }

  /** Throws a 400 listing every violation, if there are any. */
  throwIfAny(detail = 'request conflicts with the endpoint rules', status = 400): void {
    if (this.items.length > 0) throw new ApiError(status, detail, this.list());
  }
}
