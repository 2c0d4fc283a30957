import type { ReactNode } from "react";

/** A heading whose level follows the nesting (goals hold sub-goals), capped at h6. */
export function Heading({ level, id, className = "", children }: { level: number; id?: string; className?: string; children: ReactNode }) {
  const Tag = `h${Math.min(6, Math.max(2, level))}` as "h2";
  return (
    <Tag id={id} className={className}>
      {children}
    </Tag>
  );
}
