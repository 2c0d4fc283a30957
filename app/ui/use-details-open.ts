"use client";

import { type RefObject, type SyntheticEvent, useEffect, useRef, useState } from "react";

/**
 * Whether a `<details>` is open, for content built only once it is. The element opens natively
 * even before the page's scripts run, and its toggle event then fires before React listens: the
 * state is read from the element once hydrated, or content opened in that moment would stay empty
 * until closed and opened again.
 */
export function useDetailsOpen(): { ref: RefObject<HTMLDetailsElement | null>; open: boolean; onToggle: (event: SyntheticEvent<HTMLDetailsElement>) => void } {
  const ref = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (ref.current?.open) setOpen(true);
  }, []);
  return { ref, open, onToggle: (event) => setOpen(event.currentTarget.open) };
}
