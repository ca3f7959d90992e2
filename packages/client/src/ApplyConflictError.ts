import { KubeApiError } from './KubeApiError.js';
import { apiErrorFieldsOf, type RequestDescription, type StatusBody } from '@protean/core/internal';

/** One field another manager owns with a different value. */
export interface FieldConflict {
  /** The field path as the server prints it: `.data.a`, `.spec.replicas`. */
  readonly field: string;
  /** The manager that owns it (`"kubectl"`, `"my-controller"`). */
  readonly manager: string;
  /** The server's text: `conflict with "kubectl" using v1`. */
  readonly detail: string;
}

/**
 * A server-side apply refused because other field managers own fields it
 * sets to other values (HTTP 409 with `FieldManagerConflict` causes).
 * `conflicts` names each field and its manager.
 *
 * Easy to get wrong: retrying does not help. Either stop setting those
 * fields, or apply with `force: true` to take them over (right for a
 * controller that is the fields' only rightful owner).
 */
export class ApplyConflictError extends KubeApiError {
  override readonly name = 'ApplyConflictError';
  readonly conflicts: readonly FieldConflict[];
  /** The field manager whose apply was refused. */
  readonly fieldManager: string;

  constructor(request: RequestDescription, body: StatusBody, fieldManager: string) {
    super(apiErrorFieldsOf(request, 409, body, body.message ?? 'apply conflict', undefined));
    this.fieldManager = fieldManager;
    this.conflicts = Object.freeze(conflictsOf(body));
    const listed = this.conflicts.map((c) => `${c.field} (${c.manager})`).join(', ');
    this.message =
      `${request.method} ${request.target}: server-side apply as ${JSON.stringify(fieldManager)} conflicts with other managers on ${listed}; ` +
      'stop setting these fields or apply with force: true to take them over';
  }

  /** True when `body` is a 409 Status whose causes are field manager conflicts. */
  static isApplyConflict(status: number, body: StatusBody | undefined): body is StatusBody {
    return status === 409 && (body?.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');
  }
}

function conflictsOf(body: StatusBody): FieldConflict[] {
  return (body.details?.causes ?? [])
    .filter((c) => c.reason === 'FieldManagerConflict')
    .map((c) => {
      const detail = c.message ?? '';
      return { field: c.field ?? '', manager: managerIn(detail), detail };
    });
}

/** The quoted manager name in `conflict with "NAME"` (a Go %q string), or the text after `conflict with`. */
function managerIn(detail: string): string {
  const quoted = /conflict with ("(?:[^"\\]|\\.)*")/.exec(detail);
  if (quoted?.[1] !== undefined) {
    try {
      return JSON.parse(quoted[1]) as string;
    } catch {
      return quoted[1].slice(1, -1);
    }
  }
  return detail.replace(/^conflict with\s*/, '');
}
