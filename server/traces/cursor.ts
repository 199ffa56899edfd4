// Keyset cursors of the trace lists (the explorer, newest first by receipt; an export, oldest first
// by when the agent ran): the last row's time (ISO, milliseconds) and id.
import { AppError } from "@/server/errors/app-error";

export function encodeCursor(at: Date, id: string): string {
  return `${at.toISOString()}_${id}`;
}

/** `what` names the list in the refusal of a cursor it did not return ("page", "export"). */
export function decodeCursor(cursor: string, what: string): { at: Date; id: string } {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)_([0-9a-f-]{36})$/i.exec(cursor);
  const at = new Date(match?.[1] ?? "invalid");
  if (!match?.[2] || Number.isNaN(at.getTime())) {
    throw new AppError("INVALID_INPUT", `The ${what} cursor is not one this list returned. Start again from the first page.`);
  }
  return { at, id: match[2] };
}
