"use client";
// A control that needs more than the person's role: shown disabled, with a tooltip (and, for screen
// readers, a description) naming the role it needs; or left out altogether (`hide`), for controls
// repeated on every row. The server refuses the call either way.
import { cloneElement, useId, type ReactElement, type ReactNode } from "react";
import type { Action } from "./permissions";
import { usePermission } from "./session-context";

export interface ControlProps {
  disabled?: boolean;
  title?: string;
  "aria-describedby"?: string;
}

export function RoleGate({
  action,
  hide,
  control,
  children,
}: {
  action: Action;
  hide?: boolean;
  /** What to show disabled when `children` is more than the control (a dialog with its trigger). */
  control?: ReactElement<ControlProps>;
  /** What the role may use: the control itself, or the control with what it opens. */
  children: ReactNode;
}) {
  const permission = usePermission(action);
  const id = useId();
  if (permission.allowed) return children;
  if (hide) return null;
  const shown = control ?? children;
  if (!isControl(shown)) return null;
  return (
    <>
      {cloneElement(shown, { disabled: true, title: permission.reason, "aria-describedby": id })}
      <span id={id} className="sr-only">
        {permission.reason}
      </span>
    </>
  );
}

function isControl(node: ReactNode): node is ReactElement<ControlProps> {
  return typeof node === "object" && node !== null && "props" in node;
}
