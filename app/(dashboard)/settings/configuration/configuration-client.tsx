"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { Card } from "@/app/ui/card";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { TableSkeleton } from "../table-skeleton";

/** Read-only: what the orchestrator is configured with — models per agent role, settings, and its workflow routing. */
export function ConfigurationClient() {
  return (
    <div className="space-y-6">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Read-only. These tables are the orchestrator&apos;s configuration (BAZINGA&apos;s, kept with its column names), written by imports and the demo data.
      </p>
      <Card title="Models by agent role" id="model-config">
        <ModelConfigTable />
      </Card>
      <Card title="Configuration" id="configuration">
        <ConfigurationTable />
      </Card>
      <WorkflowTables />
    </div>
  );
}

const TH = "py-2 pr-3 font-medium";
const TD = "py-2 pr-3 align-top";

function Table({ caption, head, children }: { caption: string; head: string[]; children: ReactNode }) {
  return (
    <div className="-mx-4 overflow-x-auto px-4">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="text-xs text-zinc-500 uppercase">
          <tr>
            {head.map((label) => (
              <th key={label} scope="col" className={TH}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">{children}</tbody>
      </table>
    </div>
  );
}

function Empty({ what }: { what: string }) {
  return (
    <EmptyState title={`No ${what} yet.`}>
      Importing an orchestrator&apos;s database fills this table; so does the demo data: <Code>proofgate demo --sessions 50</Code>
    </EmptyState>
  );
}

/** A JSON value as indented text; plain text as it is. */
function Value({ parsed }: { parsed: unknown }) {
  const text = typeof parsed === "string" ? parsed : JSON.stringify(parsed, null, 2);
  return <pre className="max-w-xl overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-xs whitespace-pre dark:bg-zinc-950">{text}</pre>;
}

function Markers({ list }: { list: string[] }) {
  if (list.length === 0) return <span className="text-zinc-500">none</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {list.map((marker) => (
        <Code key={marker}>{marker}</Code>
      ))}
    </span>
  );
}

function ModelConfigTable() {
  const trpc = useTRPC();
  const query = useQuery(trpc.admin.modelConfig.queryOptions());
  const rows = query.data;
  if (rows === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the model configuration">
        <TableSkeleton />
      </QueryFallback>
    );
  }
  if (rows.length === 0) return <Empty what="model assignments" />;
  return (
    <Table caption="Models by agent role" head={["Agent role", "Model", "Rationale", "Updated"]}>
      {rows.map((row) => (
        <tr key={row.agentRole}>
          <td className={`${TD} font-mono text-xs`}>{row.agentRole}</td>
          <td className={TD}>
            <Badge tone="accent">{row.model}</Badge>
          </td>
          <td className={TD}>{row.rationale ?? <span className="text-zinc-500">—</span>}</td>
          <td className={TD}>
            <Time at={row.updatedAt} relative={false} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

function ConfigurationTable() {
  const trpc = useTRPC();
  const query = useQuery(trpc.admin.configuration.queryOptions());
  const rows = query.data;
  if (rows === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the configuration">
        <TableSkeleton />
      </QueryFallback>
    );
  }
  if (rows.length === 0) return <Empty what="configuration entries" />;
  return (
    <Table caption="Configuration" head={["Key", "Value", "Updated"]}>
      {rows.map((row) => (
        <tr key={row.key}>
          <td className={`${TD} font-mono text-xs`}>{row.key}</td>
          <td className={TD}>
            <Value parsed={row.parsed} />
          </td>
          <td className={TD}>
            <Time at={row.updatedAt} relative={false} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

function WorkflowTables() {
  const trpc = useTRPC();
  const query = useQuery(trpc.admin.workflow.queryOptions());
  const { data } = query;
  if (data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the workflow tables">
        <TableSkeleton />
      </QueryFallback>
    );
  }
  return (
    <>
      <Card title="Workflow transitions" id="workflow-transitions">
        {data.transitions.length === 0 ? (
          <Empty what="workflow transitions" />
        ) : (
          <Table caption="Workflow transitions: which agent acts next on each response" head={["Agent", "Response", "Next agent", "Action", "Details"]}>
            {data.transitions.map((row) => (
              <tr key={row.id}>
                <td className={`${TD} font-mono text-xs`}>{row.currentAgent}</td>
                <td className={TD}>
                  <Code>{row.responseStatus}</Code>
                </td>
                <td className={`${TD} font-mono text-xs`}>{row.nextAgent ?? <span className="text-zinc-500">—</span>}</td>
                <td className={TD}>{row.action}</td>
                <td className={`${TD} text-xs`}>
                  <TransitionDetails row={row} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Required markers" id="agent-markers">
        {data.agentMarkers.length === 0 ? (
          <Empty what="agent markers" />
        ) : (
          <Table caption="Markers each agent type must report" head={["Agent type", "Required", "Workflow"]}>
            {data.agentMarkers.map((row) => (
              <tr key={row.id}>
                <td className={`${TD} font-mono text-xs`}>{row.agentType}</td>
                <td className={TD}>
                  <Markers list={row.requiredMarkers} />
                </td>
                <td className={TD}>
                  <Markers list={row.workflowMarkers} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Special rules" id="special-rules">
        {data.specialRules.length === 0 ? (
          <Empty what="special rules" />
        ) : (
          <Table caption="Special workflow rules" head={["Rule", "Description", "Config"]}>
            {data.specialRules.map((row) => (
              <tr key={row.id}>
                <td className={`${TD} font-mono text-xs`}>{row.ruleName}</td>
                <td className={TD}>{row.description ?? <span className="text-zinc-500">—</span>}</td>
                <td className={TD}>
                  <Value parsed={row.parsed} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
    </>
  );
}

interface TransitionRow {
  includeContext: string | null;
  escalationCheck: boolean;
  modelOverride: string | null;
  fallbackAgent: string | null;
  bypassQa: boolean;
  maxParallel: number | null;
  thenAction: string | null;
}

/** Only what a transition sets, so a plain "spawn the next agent" row stays short. */
function TransitionDetails({ row }: { row: TransitionRow }) {
  const details: [string, string][] = [];
  if (row.escalationCheck) details.push(["escalation check", "yes"]);
  if (row.bypassQa) details.push(["bypass QA", "yes"]);
  if (row.modelOverride) details.push(["model", row.modelOverride]);
  if (row.fallbackAgent) details.push(["fallback", row.fallbackAgent]);
  if (row.maxParallel !== null) details.push(["max parallel", String(row.maxParallel)]);
  if (row.includeContext) details.push(["context", row.includeContext]);
  if (row.thenAction) details.push(["then", row.thenAction]);
  if (details.length === 0) return <span className="text-zinc-500">—</span>;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-2">
      {details.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-zinc-500">{term}</dt>
          <dd className="font-mono">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
