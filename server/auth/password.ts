// Passwords: argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's minimum
// profile), in PHC strings so the parameters can be raised later without breaking old hashes.
import { hash, verify } from "@node-rs/argon2";

export async function hashPassword(password: string): Promise<string> {
  return hash(password.normalize("NFKC"));
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password.normalize("NFKC"));
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the time of one verification when the email is unknown, disabled or has no password yet,
 * so the answer's timing does not tell which emails have accounts.
 */
export async function spendVerificationTime(password: string): Promise<void> {
  dummyHash ??= hash("not a password of anyone");
  await verifyPassword(await dummyHash, password);
}
