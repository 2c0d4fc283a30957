"use client";

import dynamic from "next/dynamic";
import { type ReactNode, memo, startTransition, useEffect, useRef, useState } from "react";
import type { Bucket } from "@/server/services/analytics/schemas";
import { Button } from "@/app/ui/button";
import { EmptyState } from "@/app/ui/states";
import { useDetailsOpen } from "@/app/ui/use-details-open";
import { chartHeight } from "./chart-size";
import { csvFileName } from "./csv";
import type { Block, Section, Stat } from "./section-kit";
import { type Table, formatCell, tableCsv } from "./table";

type SectionProps = { section: Section; notes: string[]; bucket: Bucket; fileTag: string };

/**
 * The charts (Recharts: two thirds of this page's JavaScript) load after the page is interactive, so
 * the figures' numbers show and hydrate without waiting for that code. Charts draw nothing on the
 * server anyway (they measure their box in the browser); the placeholder fills the box that
 * FigureBlock sizes to the chart's height, so nothing below moves when a chart is drawn.
 */
const chartPlaceholder = <div aria-hidden="true" data-chart-placeholder="" className="h-full rounded-md bg-zinc-50 dark:bg-zinc-950" />;
const FigureChart = dynamic(() => import("./figure-chart").then((m) => m.FigureChart), { ssr: false, loading: () => chartPlaceholder });

/** How far outside the screen a chart starts drawing, so it is drawn by the time it is scrolled to. */
const NEAR_MARGIN = "600px 0px";

/**
 * Draws `children` once its place comes near the screen, as a transition React can interrupt.
 * Drawing the page's twenty charts at once was one long task of up to two seconds on two cores:
 * a click on a link to another page waited for it. A chart once drawn stays drawn.
 */
function WhenNear({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const place = ref.current;
    if (near || !place) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        startTransition(() => setNear(true));
      },
      { rootMargin: NEAR_MARGIN },
    );
    observer.observe(place);
    return () => observer.disconnect();
  }, [near]);
  return near ? (
    children
  ) : (
    <div ref={ref} className="h-full">
      {chartPlaceholder}
    </div>
  );
}

/**
 * Whether a section would render the same. Every live refetch brings a new answer (its timings
 * differ) though most figures did not change; comparing the small shaped tables costs far less
 * than drawing their charts again.
 */
const sameSection = (a: SectionProps, b: SectionProps) =>
  a.bucket === b.bucket &&
  a.fileTag === b.fileTag &&
  JSON.stringify(a.notes) === JSON.stringify(b.notes) &&
  JSON.stringify(a.section) === JSON.stringify(b.section);

/** One figure: what it counts, the filters it could not apply, its headline numbers and its blocks. */
export const FigureSection = memo(function FigureSection({ section, notes, bucket, fileTag }: SectionProps) {
  const headingId = `${section.id}-heading`;
  return (
    <section aria-labelledby={headingId} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <h2 id={headingId} className="text-lg font-semibold">
        {section.title}
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{section.about}</p>
      {notes.map((note) => (
        <p
          key={note}
          role="note"
          className="mt-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100"
        >
          {note}
        </p>
      ))}
      {section.empty !== null ? (
        <div className="mt-4">
          <EmptyState title={section.empty} />
        </div>
      ) : (
        <>
          {section.stats.length > 0 && <Stats stats={section.stats} bucket={bucket} />}
          <div className="mt-4 grid gap-6 lg:grid-cols-2">
            {section.blocks.map((block) => (
              <FigureBlock key={block.id} block={block} sectionTitle={section.title} bucket={bucket} fileTag={fileTag} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}, sameSection);

function Stats({ stats, bucket }: { stats: Stat[]; bucket: Bucket }) {
  return (
    <dl className="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
      {stats.map((stat) => (
        <div key={stat.id} className="rounded-md bg-zinc-50 p-3 dark:bg-zinc-950">
          <dt className="text-xs text-zinc-600 dark:text-zinc-400">{stat.label}</dt>
          <dd className="text-xl font-semibold tabular-nums" data-testid={`stat-${stat.id}`}>
            {formatCell(stat.value, stat.kind, bucket)}
          </dd>
          {stat.detail && <dd className="text-xs text-zinc-600 tabular-nums dark:text-zinc-400">{stat.detail}</dd>}
        </div>
      ))}
    </dl>
  );
}

/** A chart with its numbers a click away as a table, or a table alone; either way a CSV of the table. */
function FigureBlock({ block, sectionTitle, bucket, fileTag }: { block: Block; sectionTitle: string; bucket: Bucket; fileTag: string }) {
  const headingId = `${block.id}-heading`;
  const caption = `${sectionTitle}: ${block.title}`;
  const hasRows = block.table.rows.length > 0;
  const { ref: tableRef, open: tableOpen, onToggle: onTableToggle } = useDetailsOpen();
  return (
    <figure aria-labelledby={headingId} className="min-w-0" data-block={block.id}>
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="text-sm font-semibold">
          {block.title}
        </h3>
        {hasRows && (
          <Button
            variant="secondary"
            className="min-h-8 px-2 py-1 text-xs"
            aria-label={`Download CSV of ${caption}`}
            onClick={() => downloadCsv(tableCsv(block.table, bucket), csvFileName("proofgate", block.id, fileTag))}
          >
            Download CSV
          </Button>
        )}
      </div>
      {!hasRows ? (
        <EmptyState title={block.empty} />
      ) : block.chart ? (
        <>
          <div data-chart-slot="" style={{ height: chartHeight(block.table, block.chart) }}>
            <WhenNear>
              <FigureChart table={block.table} chart={block.chart} bucket={bucket} />
            </WhenNear>
          </div>
          <details ref={tableRef} className="mt-2 text-sm" onToggle={onTableToggle}>
            <summary className="cursor-pointer rounded text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-600 dark:text-sky-300">
              Show as table
            </summary>
            {/* Built when opened: a closed table is read by nobody, and twenty of them would weigh on every render. */}
            {tableOpen && <DataTable table={block.table} caption={caption} bucket={bucket} />}
          </details>
        </>
      ) : (
        <DataTable table={block.table} caption={caption} bucket={bucket} />
      )}
    </figure>
  );
}

function DataTable({ table, caption, bucket }: { table: Table; caption: string; bucket: Bucket }) {
  // The first column names the row (left-aligned, whatever it holds); numbers after it line up on the right.
  const numeric = table.columns.map((c, i) => i > 0 && c.kind !== "text" && c.kind !== "bucket");
  // A long series scrolls in its own box under a header that stays; a short table is shown whole.
  const long = table.rows.length > 15;
  return (
    <div className={`mt-2 overflow-auto rounded-md border border-zinc-200 dark:border-zinc-800 ${long ? "max-h-96" : ""}`}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="sticky top-0 bg-zinc-50 text-xs text-zinc-600 dark:bg-zinc-950 dark:text-zinc-400">
          <tr>
            {table.columns.map((column, i) => (
              <th key={i} scope="col" className={`px-2 py-1.5 font-medium ${numeric[i] ? "text-right" : ""}`}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, r) => (
            <tr key={r} className="border-t border-zinc-100 dark:border-zinc-800">
              {row.map((value, i) => {
                const kind = table.columns[i]?.kind ?? "text";
                const text = formatCell(value, kind, bucket);
                return i === 0 ? (
                  <th key={i} scope="row" className="px-2 py-1 text-left font-normal break-words">
                    {text}
                  </th>
                ) : (
                  <td key={i} className={`px-2 py-1 ${numeric[i] ? "text-right tabular-nums whitespace-nowrap" : "break-words"}`}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Save text as a CSV file, made in the browser from the table on screen. The byte-order mark lets
 * spreadsheet programs read it as UTF-8 (criteria and reasons are free text).
 */
function downloadCsv(csv: string, fileName: string) {
  const url = URL.createObjectURL(new Blob(["\uFEFF", csv], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
