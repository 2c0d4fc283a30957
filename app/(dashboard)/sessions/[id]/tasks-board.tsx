"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type OpenMove, TaskMoveDialog } from "@/app/components/task-actions";
import { useTRPC } from "@/app/trpc/client";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { TASK_STATUSES, type TaskStatus } from "@/server/domain/task-machine";
import { TaskCard } from "./task-card";
import { STATUS_LABEL, type TaskItem, movable } from "./task-types";

/** The session's tasks as a board by state: columns on a wide screen, one after another on a phone. */
export function TasksBoard({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.task.board.queryOptions({ sessionId }));
  const [open, setOpen] = useState<OpenMove | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  if (query.data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the tasks">
        <LoadingBlock label="Loading tasks…" />
      </QueryFallback>
    );
  }
  const { tasks } = query.data;
  const byStatus = new Map<TaskStatus, TaskItem[]>(TASK_STATUSES.map((status) => [status, []]));
  for (const task of tasks) byStatus.get(task.status)?.push(task);
  const current = open ? tasks.find((t) => t.key === open.key) : undefined;

  return (
    <section aria-labelledby="tasks-heading" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="tasks-heading" className="text-lg font-semibold">
          Tasks <span className="text-sm font-normal text-zinc-500 tabular-nums">({tasks.length})</span>
        </h2>
        <p role="status" aria-live="polite" className="text-sm text-emerald-800 dark:text-emerald-300">
          {message}
        </p>
      </div>
      {tasks.length === 0 ? (
        <EmptyState title="No tasks in this session yet.">
          An orchestrator creates them, e.g. <Code>proofgate create-task-group group_a {sessionId} &quot;JWT endpoints&quot;</Code>
        </EmptyState>
      ) : (
        <div className="grid gap-3 md:grid-cols-3 xl:grid-cols-6">
          {TASK_STATUSES.map((status) => {
            const column = byStatus.get(status) ?? [];
            return (
              <section
                key={status}
                aria-labelledby={`column-${status}`}
                data-testid={`column-${status}`}
                className="min-w-0 rounded-lg bg-zinc-100 p-2 dark:bg-zinc-900/70"
              >
                <h3 id={`column-${status}`} className="mb-2 flex items-center justify-between px-1 text-sm font-semibold">
                  <span>{STATUS_LABEL[status]}</span>
                  <span className="tabular-nums text-zinc-500">{column.length}</span>
                </h3>
                {column.length === 0 ? (
                  <p className="px-1 pb-1 text-xs text-zinc-500">None</p>
                ) : (
                  <ul className="space-y-2">
                    {column.map((task) => (
                      <li key={task.id}>
                        <TaskCard
                          task={task}
                          onOpen={(move) => {
                            setMessage(null);
                            setOpen({ sessionId, key: task.key, move, version: task.version });
                          }}
                        />
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            );
          })}
        </div>
      )}
      {open && (
        <TaskMoveDialog
          open={open}
          task={current && movable(current)}
          onClose={() => setOpen(null)}
          onDone={(done) => {
            setOpen(null);
            setMessage(done);
          }}
        />
      )}
    </section>
  );
}
