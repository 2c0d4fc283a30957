"use client";

import { useEffect, useRef } from "react";

/** Whether a key press belongs to something being typed in or a dialog, not to the page. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest("dialog[open]")) return true;
  return ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) && !(target instanceof HTMLInputElement && target.type === "checkbox");
}

/**
 * Single-key shortcuts for the page (`j`, `k`, …): ignored while typing in a field, inside an open
 * dialog, and with Ctrl, Alt or Meta held (the browser's own shortcuts).
 */
export function useShortcuts(keys: Record<string, () => void>): void {
  const current = useRef(keys);
  useEffect(() => {
    current.current = keys;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey || isTyping(event.target)) return;
      const action = current.current[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
