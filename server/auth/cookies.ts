// The session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site posts),
// Secure when the studio is served over HTTPS, and only ever the random token (the database keeps its hash).

export const SESSION_COOKIE = "ace_session";

export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  return [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAge}`, ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}

export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join("; ");
}

/** The session token a request carries, if any. */
export function readSessionToken(headers: Headers): string | null {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(separator + 1).trim();
    // Tokens are lower-case base32; anything else is not ours and is ignored.
    return /^[a-z2-7]{20,128}$/.test(value) ? value : null;
  }
  return null;
}
