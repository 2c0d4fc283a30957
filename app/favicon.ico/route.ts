/**
 * `/favicon.ico`: browsers and tools ask for it whatever a page declares (Chromium does when a
 * streamed page's icon link has not arrived yet), and a 404 there was logged as a console error.
 * It is the app's icon, `app/icon.svg`, which Next serves at `/icon.svg`.
 */
export function GET(): Response {
  return new Response(null, { status: 308, headers: { Location: "/icon.svg", "Cache-Control": "public, max-age=86400" } });
}
