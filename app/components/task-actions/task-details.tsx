import type { Proofpack } from "@/server/domain/task-machine";
import { Badge } from "@/app/ui/badge";
import { isExternal, safeHref } from "./safe-href";

/** Evidence as an agent gave it: text always, a link only when it is a safe one (see `safeHref`). */
export function EvidenceList({ evidence, label = "Evidence" }: { evidence: readonly string[] | null | undefined; label?: string }) {
  if (!evidence || evidence.length === 0) return null;
  return (
    <div>
      <p className="font-medium text-zinc-600 dark:text-zinc-400">{label}</p>
      <ul className="mt-0.5 space-y-0.5">
        {evidence.map((item, i) => (
          <li key={i} className="break-all font-mono text-[0.8em]">
            <EvidenceText text={item} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One piece of evidence: a link when it is a safe one, otherwise exactly the text given. */
export function EvidenceText({ text }: { text: string }) {
  const href = safeHref(text);
  if (!href) return <>{text}</>;
  return (
    <a
      href={href}
      className="text-sky-700 underline underline-offset-2 hover:text-sky-900 dark:text-sky-300 dark:hover:text-sky-100"
      {...(isExternal(href) ? { target: "_blank", rel: "noopener noreferrer" } : {})}
    >
      {text}
    </a>
  );
}

/** The proofpack's verdict and how many checks passed and failed, on one line. */
export function ProofpackSummary({ proofpack }: { proofpack: Proofpack | null | undefined }) {
  if (!proofpack) return null;
  const passed = proofpack.checks.filter((c) => c.passed).length;
  const failed = proofpack.checks.length - passed;
  return (
    <p data-testid="proofpack-summary" className="flex flex-wrap items-center gap-1 font-medium text-zinc-600 dark:text-zinc-400">
      Proofpack <Badge tone={proofpack.verdict === "PASSED" ? "good" : "bad"}>{proofpack.verdict}</Badge>
      <span className="font-normal tabular-nums">
        {passed} passed, {failed} failed
      </span>
    </p>
  );
}

/** The verifier's proofpack: verdict, each check with pass/fail, notes and where the full artifact lives. */
export function ProofpackView({ proofpack }: { proofpack: Proofpack | null | undefined }) {
  if (!proofpack) return null;
  return (
    <div data-testid="proofpack">
      <ProofpackSummary proofpack={proofpack} />
      {proofpack.checks.length > 0 && (
        <ul className="mt-0.5 space-y-0.5">
          {proofpack.checks.map((check, i) => (
            <li key={i} className="flex items-start gap-1.5 break-words">
              <Badge tone={check.passed ? "good" : "bad"}>{check.passed ? "pass" : "fail"}</Badge>
              <span className="min-w-0">
                {check.name}
                {check.detail && <span className="text-zinc-500"> — {check.detail}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
      {proofpack.notes && <p className="mt-0.5 whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300">{proofpack.notes}</p>}
      {proofpack.path && <EvidenceList evidence={[proofpack.path]} label="Full proofpack" />}
    </div>
  );
}

/** What the verifier found wrong: the reason a task is blocked. */
export function FailureList({ failures }: { failures: readonly string[] | null | undefined }) {
  if (!failures || failures.length === 0) return null;
  return (
    <div>
      <p className="font-medium text-rose-800 dark:text-rose-300">Failures</p>
      <ul className="mt-0.5 list-disc space-y-0.5 pl-4">
        {failures.map((failure, i) => (
          <li key={i} className="whitespace-pre-wrap break-words">
            {failure}
          </li>
        ))}
      </ul>
    </div>
  );
}
