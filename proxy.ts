// Runs before every route (Next.js 16 "proxy"): refuses host names the studio does not answer to
// (DNS rebinding), gives each request an id, and puts the security headers on every response,
// with a fresh nonce in the pages' Content-Security-Policy. Sign-in is checked by the routes and
// procedures themselves (server/auth), not here.
import { NextResponse, type NextRequest } from "next/server";
import { getAuthSettings } from "@/server/auth/config";
import { unknownHostRefusal } from "@/server/auth/hosts";
import { REQUEST_ID_HEADER } from "@/server/auth/request";
import { API_CSP, COMMON_SECURITY_HEADERS as COMMON_HEADERS } from "@/server/http/security-headers";

const isDev = process.env.NODE_ENV === "development";

function pageCsp(nonce: string): string {
  return [
    "default-src 'self'",
    // The nonce covers Next.js's own inline scripts; 'strict-dynamic' the chunks they load.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${isDev ? " 'unsafe-eval'" : ""}`,
    // Inline style attributes (virtualised lists, Radix positioning) and injected <style> (toasts).
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest) {
  const refusal = unknownHostRefusal(request.headers, getAuthSettings().allowedHosts);
  if (refusal) {
    return new NextResponse(refusal, {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", ...COMMON_HEADERS },
    });
  }

  const requestId = crypto.randomUUID();
  const isApi = request.nextUrl.pathname.startsWith("/api/");
  const nonce = isApi ? null : Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = nonce ? pageCsp(nonce) : API_CSP;

  const headers = new Headers(request.headers);
  headers.set(REQUEST_ID_HEADER, requestId);
  headers.set("x-ace-path", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  if (nonce) {
    // Next.js reads the nonce from the request's CSP header and puts it on the scripts it renders.
    headers.set("x-nonce", nonce);
    headers.set("content-security-policy", csp);
  }
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  response.headers.set(REQUEST_ID_HEADER, requestId);
  for (const [name, value] of Object.entries(COMMON_HEADERS)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Not the build's static files: they hold no data and carry next.config's headers. Not the agents'
  // API either (/api/v1, /api/mcp): its route wrapper (server/apikeys/route.ts) makes the same host
  // check and puts the same headers on, and skipping this step halves the CPU time of an agent's
  // request (a 415 answered by the wrapper: 422 → 1,032 requests/s with 8 clients on 2 cores).
  matcher: ["/((?!_next/static|_next/image|api/v1/|api/mcp).*)"],
};
