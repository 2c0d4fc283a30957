/**
 * The domain's error hierarchy. Every refusal names the rule that refused it (a stable
 * machine-readable code) and says why in words; the API and the CLI map these classes to
 * status codes and exit codes in one place each.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: "validation" | "forbidden" | "not_found" | "conflict";
  constructor(
    /** Stable identifier of the rule, e.g. `task.claimant_cannot_verify`. */
    readonly rule: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * `["rows", 417, "content"]` → `rows[417].content`; an empty path names the whole input (`root`).
 * A key that is not a plain name (a space, a dot, a colon, nothing) is quoted: `metadata[" "]`.
 */
export function fieldPath(path: readonly PropertyKey[], root = "input"): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && !/^[A-Za-z_$][\w$-]*$/.test(segment)) out += `[${JSON.stringify(segment)}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? root : out;
}

/** Bad input: names the field and the rule it broke. Nothing is written. */
export class ValidationError extends DomainError {
  readonly kind = "validation" as const;
  constructor(
    readonly field: string,
    rule: string,
    message: string,
  ) {
    super(rule, `${field}: ${message}`);
  }
}

/** A move the task machine (or another ledger rule) does not allow from the current state. */
export class ForbiddenTransitionError extends DomainError {
  readonly kind = "forbidden" as const;
}

/** The actor's role, or the actor's identity (e.g. the claimant verifying their own claim), is not allowed this action. */
export class RoleForbiddenError extends DomainError {
  readonly kind = "forbidden" as const;
}

/** The completion gate (or another gate) refused; `reasons` lists every failed check. */
export class GateRejectedError extends DomainError {
  readonly kind = "forbidden" as const;
  constructor(
    rule: string,
    message: string,
    readonly reasons: readonly string[],
  ) {
    super(rule, message);
  }
}

export class NotFoundError extends DomainError {
  readonly kind = "not_found" as const;
  constructor(
    readonly entity: string,
    readonly id: string | number,
  ) {
    super(`${entity}.not_found`, `${entity} ${JSON.stringify(id)} does not exist`);
  }
}

/** Someone else changed the row first (compare-and-set failed). Re-read and retry. */
export class ConflictError extends DomainError {
  readonly kind = "conflict" as const;
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
