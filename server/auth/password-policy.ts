// Which new passwords the server accepts: the length rule of schemas.ts (which the browser checks
// too), and not one of the common passwords attackers try first. The list is the "passwords-common"
// dictionary of @zxcvbn-ts/language-common (about 49,000 passwords from leaked-password corpora),
// kept on the server: it is too large to send to every browser.
import { dictionary } from "@zxcvbn-ts/language-common";
import { acceptInviteInput, changePasswordInput, createUserInput, newPasswordSchema, setupInput } from "./schemas";

// The list is lower case; spaces are dropped too, so "pass word 12" counts as "password12".
const COMMON_PASSWORDS = new Set(dictionary["passwords-common"]);

export function isCommonPassword(password: string): boolean {
  const folded = password.normalize("NFKC").toLowerCase();
  return COMMON_PASSWORDS.has(folded) || COMMON_PASSWORDS.has(folded.replace(/\s+/g, ""));
}

export const COMMON_PASSWORD_MESSAGE =
  "This password is one of the most common passwords, which attackers try first. Choose another: a few unrelated words make a good one.";

/** A new password as the server accepts it: long enough, and not a common one. */
export const acceptedPasswordSchema = newPasswordSchema.refine((password) => !isCommonPassword(password), {
  error: COMMON_PASSWORD_MESSAGE,
});

// The account inputs that set a password, with the full policy (schemas.ts has the browser's part).
export const checkedSetupInput = setupInput.extend({ password: acceptedPasswordSchema });
export const checkedAcceptInviteInput = acceptInviteInput.extend({ password: acceptedPasswordSchema });
export const checkedChangePasswordInput = changePasswordInput.extend({ newPassword: acceptedPasswordSchema });
export const checkedCreateUserInput = createUserInput.extend({ password: acceptedPasswordSchema });
