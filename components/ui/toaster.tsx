"use client";
// Toasts via sonner, styled to the theme. Call `toast.success(...)` from "sonner" anywhere.
import { Toaster as Sonner } from "sonner";

export function Toaster() {
  return (
    <Sonner
      position="bottom-right"
      closeButton
      toastOptions={{
        classNames: {
          toast: "!rounded-card !border-line !bg-surface !text-ink !shadow-pop",
          description: "!text-ink-muted",
        },
      }}
    />
  );
}
