/**
 * Evidence is whatever an agent typed: a path, a URL, or a sentence. Only an http(s) URL or a
 * plain relative path (one word, no spaces) becomes a link; `javascript:`, `data:`, protocol-relative
 * (`//host`) and backslash tricks (`/\host`, which browsers read as `//host`) stay text.
 */
export function safeHref(value: string): string | null {
  const text = value.trim();
  if (text === "" || /[\s\u0000-\u001f\u007f\\]/.test(text)) return null;
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  }
  // Any other scheme (javascript:, data:, file:, mailto:…) or a host-relative `//`.
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith("//")) return null;
  // Characters no path holds unescaped (RFC 3986): markup such as `<script>` is text, not a link.
  if (/[<>"'`{}|^]/.test(text)) return null;
  return text;
}

/** Whether a link leaves this site (opened in a new tab without a referrer). */
export function isExternal(href: string): boolean {
  return /^https?:\/\//i.test(href);
}
