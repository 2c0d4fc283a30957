"use client";

import { Button } from "@/app/ui/button";
import { controlClass } from "@/app/ui/field";

export interface CheckDraft {
  id: number;
  name: string;
  passed: boolean;
}

let nextId = 1;
export const newCheck = (passed = true): CheckDraft => ({ id: nextId++, name: "", passed });

/** The named checks with a pass/fail result each; rows left without a name are not sent. */
export function checksOf(drafts: readonly CheckDraft[]) {
  return drafts.filter((d) => d.name.trim() !== "").map((d) => ({ name: d.name.trim(), passed: d.passed }));
}

/** The proofpack's checks: a name and pass/fail per row, rows added and removed at will. */
export function ChecksEditor({
  checks,
  onChange,
  defaultPassed = true,
}: {
  checks: CheckDraft[];
  onChange: (checks: CheckDraft[]) => void;
  defaultPassed?: boolean;
}) {
  const update = (id: number, patch: Partial<CheckDraft>) => onChange(checks.map((c) => (c.id === id ? { ...c, ...patch } : c)));
  return (
    <fieldset className="space-y-2 text-sm">
      <legend className="mb-1 font-medium">Checks</legend>
      {checks.map((check, i) => (
        <div key={check.id} className="flex flex-wrap items-end gap-2 sm:flex-nowrap">
          <label className="min-w-0 flex-1 basis-full sm:basis-auto">
            <span className="sr-only">Check {i + 1} name</span>
            <input
              className={controlClass}
              placeholder="e.g. unit_tests"
              value={check.name}
              onChange={(e) => update(check.id, { name: e.target.value })}
              aria-label={`Check ${i + 1} name`}
            />
          </label>
          <label>
            <span className="sr-only">Check {i + 1} result</span>
            <select
              className={`${controlClass} w-auto`}
              value={check.passed ? "pass" : "fail"}
              onChange={(e) => update(check.id, { passed: e.target.value === "pass" })}
              aria-label={`Check ${i + 1} result`}
            >
              <option value="pass">pass</option>
              <option value="fail">fail</option>
            </select>
          </label>
          <Button variant="ghost" aria-label={`Remove check ${i + 1}`} onClick={() => onChange(checks.filter((c) => c.id !== check.id))}>
            Remove
          </Button>
        </div>
      ))}
      <Button variant="secondary" onClick={() => onChange([...checks, newCheck(defaultPassed)])}>
        Add check
      </Button>
    </fieldset>
  );
}
