// Secrets the server hands out (session cookies, invite links, setup tokens, API keys) and the
// hashes it keeps instead of them. All are 256-bit random values: a fast hash is enough to store
// them (nothing to brute-force), so SHA-256, and HMAC-SHA-256 with a server key for API keys.
import { randomBytes } from "node:crypto";
import { hmac } from "@oslojs/crypto/hmac";
import { SHA256, sha256 } from "@oslojs/crypto/sha2";
import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";

const encoder = new TextEncoder();

/** A random token: 32 bytes (256 bits) as lower-case base32, 52 characters, safe in URLs and cookies. */
export function newToken(bytes = 32): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(bytes));
}

/** What the database keeps of a session, invite or setup token. */
export function tokenHash(token: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(token)));
}

/** What the database keeps of an API key's secret: HMAC-SHA-256 under the server's key. */
export function keyedHash(key: string, secret: string): string {
  return encodeHexLowerCase(hmac(SHA256, encoder.encode(key), encoder.encode(secret)));
}

/** Two hashes compared in constant time (hex strings of the same algorithm). */
export function sameHash(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && constantTimeEqual(left, right);
}
