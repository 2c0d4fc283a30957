import { useSyncExternalStore } from "react";

const subscribeNothing = () => () => {};

/**
 * False while the server renders and while the browser hydrates what it rendered; true after. The
 * page's HTML is on screen before its scripts run, and a control used in between is not React's
 * yet: its change is lost, and a form submits natively (a GET that puts its fields in the address).
 */
export const useHydrated = () =>
  useSyncExternalStore(
    subscribeNothing,
    () => true,
    () => false,
  );
