/**
 * Where a refusal belongs on a form. The API names the field of a bad input (`data.issues[].path`
 * for a schema error, `data.field` for a domain validation) and the rule of a refusal
 * (`data.rule`); a rule that is about one field (e.g. a duplicate email) is shown at that field.
 */
export interface FormErrors<F extends string> {
  /** What belongs to no single field. */
  form: string | null;
  fields: Partial<Record<F, string>>;
}

interface ErrorData {
  rule?: string;
  field?: string;
  issues?: { path: string; message: string }[];
}

export function toFormErrors<F extends string>(error: unknown, fields: readonly F[], ruleFields: Partial<Record<string, F>> = {}): FormErrors<F> {
  const message = error instanceof Error ? error.message : String(error);
  const data = (typeof error === "object" && error !== null && "data" in error ? (error as { data: unknown }).data : null) as ErrorData | null;
  const isField = (name: string | undefined): name is F => name !== undefined && (fields as readonly string[]).includes(name);
  const result: FormErrors<F> = { form: null, fields: {} };

  if (data?.issues?.length) {
    const elsewhere: string[] = [];
    for (const issue of data.issues) {
      if (isField(issue.path)) result.fields[issue.path] ??= issue.message;
      else elsewhere.push(`${issue.path}: ${issue.message}`);
    }
    result.form = elsewhere.length ? elsewhere.join("; ") : null;
    return result;
  }
  const field = (data?.rule && ruleFields[data.rule]) || (isField(data?.field) ? data.field : undefined);
  if (field) result.fields[field] = message;
  else result.form = message;
  return result;
}
