/** A page's search params as Next hands them to a server component, or the browser's URLSearchParams. */
export type SearchParamsInput = Record<string, string | string[] | undefined> | URLSearchParams;

/** The first value of `key` as given (a repeated parameter counts once), or undefined when absent. */
export function firstParam(params: SearchParamsInput, key: string): string | undefined {
  const value = params instanceof URLSearchParams ? (params.get(key) ?? undefined) : params[key];
  return Array.isArray(value) ? value[0] : value;
}

/** `firstParam` trimmed, with an empty value read as absent. */
export function trimmedParam(params: SearchParamsInput, key: string): string | undefined {
  return firstParam(params, key)?.trim() || undefined;
}

/** A value quoted back in a problem message: at most 40 characters. */
export function clipValue(value: string): string {
  return value.length > 40 ? `${value.slice(0, 39)}…` : value;
}
