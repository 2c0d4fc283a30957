// What the clients were told was written: the run's record of acknowledged writes, which every
// check after a restart holds the database to.
import type { TaskMove, TaskStatus } from "@/server/domain/task-machine";

export interface TaskAck {
  key: string;
  taskId: number;
  /** `create`, or the move the server acknowledged. */
  move: TaskMove | "create";
  /** The task's version after the write (1 for a create). */
  version: number;
  status: TaskStatus;
}

export interface CriterionAck {
  criterionId: number;
  status: string;
  /** Unique per update, so the update row is found by value. */
  actual: string;
}

export interface BatchAck {
  batchId: string;
  logIds: number[];
  tokenIds: number[];
}

/** One log batch's shape, encoded in each of its rows so a partly stored batch is visible in the database alone. */
export const BATCH_MARKER = /^crash:([^:]+):(\d+)\/(\d+)(?:\s|$)/;
export const batchContent = (batchId: string, row: number, rows: number) => `crash:${batchId}:${row}/${rows} `;

export class Ledger {
  readonly tasks: TaskAck[] = [];
  readonly criteria: CriterionAck[] = [];
  readonly batches: BatchAck[] = [];
  /** Requests sent whose outcome the client never learned (the server died or was down). */
  unanswered = 0;
  /** Of those, how many turned out to be committed (a task found moved on when the client looked again). */
  unansweredButStored = 0;
  /** Requests on the wire right now (the kill's victims). */
  inFlight = 0;
  /** Requests on the wire at each kill. */
  readonly inFlightAtKill: number[] = [];
  /** Errors the server answered with: none is expected. */
  readonly serverErrors: string[] = [];

  get acknowledged(): number {
    return this.tasks.length + this.criteria.length + this.batches.length;
  }

  get acknowledgedRows(): number {
    return this.batches.reduce((sum, batch) => sum + batch.logIds.length + batch.tokenIds.length, 0);
  }

  /** A copy of every acknowledgement so far (taken inside the checker's read snapshot). */
  snapshot(): { tasks: TaskAck[]; criteria: CriterionAck[]; batches: BatchAck[] } {
    return { tasks: [...this.tasks], criteria: [...this.criteria], batches: [...this.batches] };
  }
}
