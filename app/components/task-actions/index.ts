export { TaskActionButtons } from "./task-action-buttons";
export { TaskMoveDialog } from "./task-move-dialog";
export { EvidenceList, EvidenceText, FailureList, ProofpackSummary, ProofpackView } from "./task-details";
export { HUMAN_MOVES, MOVE_LABEL, type HumanMove, type MovableTask, type OpenMove } from "./types";
