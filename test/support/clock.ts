// flake-risks time: this helper waits for the wall clock itself to move on
// flake-risks wait: this helper waits for the wall clock itself to move on
/**
 * Resolves once the wall clock shows a later millisecond than when it was called: rows written after
 * it carry a later timestamp than rows written before, however a timer rounds its delay (a
 * `setTimeout(…, 5)` may fire after 4 ms of `Date.now()`) and however loaded the machine is.
 */
export async function nextMillisecond(): Promise<Date> {
  const last = Date.now();
  while (Date.now() <= last) await new Promise((resolve) => setTimeout(resolve, 1));
  return new Date();
}
