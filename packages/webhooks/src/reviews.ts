/** A Kubernetes object as a review carries it: JSON, `metadata` included. */
export type ReviewObject = Record<string, unknown>;

/** The group, version and kind (or resource) of what a review is about. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}
export interface GroupVersionResourceRef {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** Who asked: the `userInfo` of the request kube-apiserver is admitting. */
export interface ReviewUser {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** `request` of an `admission.k8s.io/v1` AdmissionReview. */
export interface AdmissionRequest<T extends ReviewObject = ReviewObject> {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResourceRef;
  readonly subResource?: string;
  readonly requestKind?: GroupVersionKind;
  readonly requestResource?: GroupVersionResourceRef;
  readonly requestSubResource?: string;
  /** Empty on a create whose name the server generates. */
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly userInfo: ReviewUser;
  /** The object as it would be stored (absent on DELETE). */
  readonly object?: T;
  /** The stored object (UPDATE and DELETE). */
  readonly oldObject?: T;
  readonly dryRun?: boolean;
  readonly options?: ReviewObject;
}

/** What a validating handler answers. `code` defaults to 403 on a denial. */
export type ValidationResult =
  | { readonly allowed: true; readonly warnings?: readonly string[] }
  | {
      readonly allowed: false;
      readonly message: string;
      readonly code?: number;
      /** A `StatusReason`, e.g. `Forbidden` or `Invalid`. */
      readonly reason?: string;
      readonly warnings?: readonly string[];
    };

/**
 * What a mutating handler answers: the object as it should be stored (the
 * server sends kube-apiserver the JSON Patch from the request's object to
 * it), or a denial. `undefined` or the request's own object: no change.
 */
export type MutationResult<T extends ReviewObject = ReviewObject> =
  { readonly allowed?: true; readonly object?: T; readonly warnings?: readonly string[] } | Extract<ValidationResult, { allowed: false }>;

/** `request` of an `apiextensions.k8s.io/v1` ConversionReview. */
export interface ConversionRequest {
  readonly uid: string;
  /** `group/version` every object is to be converted to. */
  readonly desiredAPIVersion: string;
  readonly objects: readonly ReviewObject[];
}

/** The answer to a review kube-apiserver reads: the wire form of `response`. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  patchType?: 'JSONPatch';
  /** base64 of the JSON Patch. */
  patch?: string;
  warnings?: string[];
}
