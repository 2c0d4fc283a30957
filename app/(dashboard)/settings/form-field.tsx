"use client";

import { type InputHTMLAttributes, type SelectHTMLAttributes, useId } from "react";
import { controlClass } from "@/app/ui/field";

interface Extra {
  label: string;
  hint?: string;
  /** The server's message for this field: shown under it and read as its description. */
  error?: string;
}

function useDescribed(hint?: string, error?: string) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  const below = (
    <>
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-zinc-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="mt-1 text-xs font-medium text-rose-700 dark:text-rose-300">
          {error}
        </p>
      )}
    </>
  );
  return { id, describedBy, below };
}

const INVALID = "aria-invalid:border-rose-500 dark:aria-invalid:border-rose-400";

export function InputField({ label, hint, error, ...props }: InputHTMLAttributes<HTMLInputElement> & Extra) {
  const { id, describedBy, below } = useDescribed(hint, error);
  return (
    <div className="text-sm">
      <label htmlFor={id} className="mb-1 block font-medium">
        {label}
      </label>
      <input id={id} className={`${controlClass} ${INVALID}`} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...props} />
      {below}
    </div>
  );
}

export function SelectField({
  label,
  hint,
  error,
  options,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & Extra & { options: readonly { value: string; label: string }[] }) {
  const { id, describedBy, below } = useDescribed(hint, error);
  return (
    <div className="text-sm">
      <label htmlFor={id} className="mb-1 block font-medium">
        {label}
      </label>
      <select id={id} className={`${controlClass} ${INVALID}`} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...props}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {below}
    </div>
  );
}
